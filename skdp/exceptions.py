"""Warnings and errors raised by skdp."""

__all__ = ["BudgetExceededError", "ClippingWarning", "PrivacyLeakWarning"]


class PrivacyLeakWarning(UserWarning):
    """A value was read from the private data where a public input was expected.

    The result is no longer covered by the stated differential-privacy guarantee.
    Pass the public value explicitly (``bounds``, ``classes``, ...) to silence it.
    """


class ClippingWarning(UserWarning):
    """Values outside the public bounds (or norm) were clipped before fitting.

    Clipping is part of the privacy mechanism, but it changes the data, so skdp
    always says how many values it clipped.
    """


class BudgetExceededError(RuntimeError):
    """A privacy spend would take a budget past its cap.

    Raised *before* the mechanism draws its noise, so nothing is released.
    """
