"""Mutants for the privacy audits: mechanisms that draw too little noise."""

import contextvars

from skdp.accounting import record_spend


def draws_for(factor, real):
    """``real`` drawing its noise for ``factor`` times the epsilon it tells the ledger.

    The ledger hears the nominal epsilon (the draw runs in a fresh context, so the
    mechanism's own record goes nowhere): fits close their last share on the ledger,
    and a mutant that recorded ``factor * epsilon`` would leave nothing to close.
    """

    def too_little_noise(*args, epsilon, **kwargs):
        drawn = contextvars.Context().run(real, *args, epsilon=factor * epsilon, **kwargs)
        record_spend(epsilon, mechanism=getattr(real, "__name__", "mutant"))
        return drawn

    return too_little_noise


def ten_times(monkeypatch, module, *names):
    """Patch each mechanism ``module.<name>`` to draw for ten times its epsilon
    (:func:`draws_for`): the audits' standard too-little-noise mutant."""
    for name in names:
        monkeypatch.setattr(module, name, draws_for(10, getattr(module, name)))
