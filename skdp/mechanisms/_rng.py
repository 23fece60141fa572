"""Random generators for the mechanisms."""

import secrets
from numbers import Integral

import numpy as np
from randomgen import AESCounter, ChaCha

__all__ = ["check_random_state"]


def check_random_state(random_state=None):
    """Turn ``random_state`` into a :class:`numpy.random.Generator`.

    Parameters
    ----------
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState
        * ``None`` (the default, and the only choice for a real release): a new
          cryptographically secure generator keyed from the operating system's
          secure source (:mod:`secrets`), created on every call: AES-128 in counter
          mode (``randomgen.AESCounter``, 128-bit key) where the processor has AES
          instructions, about ten times faster than ChaCha20, else ChaCha20 with a
          256-bit key. Nothing about it can be predicted or replayed, and forked or
          spawned workers each key their own generator, so they never share noise.
        * an int: a seeded, reproducible generator, for tests and experiments only.
          An attacker who knows the seed can subtract the noise, so never publish a
          release made with a fixed seed. Every clone of an estimator given an int
          seed draws the same noise (that is what reproducible means).
        * a ``Generator``: returned as is (its stream is shared with the caller).
          ``sklearn.base.clone`` gives each clone of a skdp estimator a spawned child
          of it, so clones (folds, grid points) never draw the same noise.
        * a legacy ``RandomState``: a seed is drawn from it (reproducible); clones
          of a skdp estimator get a ``RandomState`` seeded from a draw of it.

    Returns
    -------
    numpy.random.Generator
        The generator to draw the noise from.

    Examples
    --------
    >>> from skdp.mechanisms import check_random_state
    >>> rng = check_random_state(0)
    >>> int(rng.integers(10)) == int(check_random_state(0).integers(10))
    True
    >>> type(check_random_state(None).bit_generator).__name__ in {"AESCounter", "ChaCha"}
    True
    """
    if random_state is None:
        return np.random.Generator(_secure_bit_generator())
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**32, size=4))
    if isinstance(random_state, Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be a non-negative int, got {random_state}")
        return np.random.default_rng(int(random_state))
    raise ValueError(
        "random_state must be None, a non-negative int, a numpy Generator or a RandomState, "
        f"got {random_state!r}"
    )


# whether this processor runs AESCounter with its AES instructions (else ChaCha20 is
# the faster of the two secure generators)
_AES = bool(AESCounter(key=0).use_aesni)


def _secure_bit_generator():
    """A freshly keyed cryptographically secure bit generator (see check_random_state)."""
    if _AES:
        return AESCounter(key=secrets.randbits(128))
    return ChaCha(key=secrets.randbits(256))
