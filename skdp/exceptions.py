"""Warnings and errors raised by skdp."""

__all__ = [
    "BudgetExceededError",
    "ClippingWarning",
    "PrivacyLeakWarning",
    "PublicBoundsWarning",
]


class PrivacyLeakWarning(UserWarning):
    """A value was read from the private data where a public input was expected.

    The result is no longer covered by the stated differential-privacy guarantee.
    Pass the public value explicitly (``bounds``, ``classes``, ...) to silence it, or
    turn it into an error with ``warnings.simplefilter("error", PrivacyLeakWarning)``.

    Examples
    --------
    A classifier given no public ``classes`` reads the labels from ``y``:

    >>> import warnings
    >>> import numpy as np
    >>> from skdp.linear_model import FunctionalMechanismClassifier
    >>> X, y = np.array([[0.1], [0.4], [0.6], [0.9]]), np.array([0, 0, 1, 1])
    >>> model = FunctionalMechanismClassifier(epsilon=1.0, bounds=(0.0, 1.0), random_state=0)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     model = model.fit(X, y)
    >>> [w.category.__name__ for w in caught]
    ['PrivacyLeakWarning']

    With the public labels there is nothing to warn about:

    >>> model.set_params(classes=[0, 1]).fit(X, y).classes_
    array([0, 1])
    """


class ClippingWarning(UserWarning):
    """Values outside the public bounds (or norm) were clipped before fitting.

    Clipping is part of the privacy mechanism, but it changes the data, so skdp
    always says how many values it clipped.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from skdp.linear_model import FunctionalMechanismRegressor
    >>> X = np.array([[0.2], [0.5], [1.5], [-3.0]])  # two values outside [0, 1]
    >>> y = np.array([0.1, 0.4, 0.9, 0.0])
    >>> model = FunctionalMechanismRegressor(
    ...     epsilon=1.0, bounds=(0.0, 1.0), bounds_y=(0.0, 1.0), random_state=0)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     model = model.fit(X, y)
    >>> print(caught[0].category.__name__, caught[0].message)
    ClippingWarning 2 of 4 values of X lay outside the public bounds and were clipped to them.
    """


class PublicBoundsWarning(UserWarning):
    """Bounds left as ``None`` were estimated too coarsely to serve every feature well.

    With few records or a small epsilon, the private bounds cannot follow each feature:
    one box then serves every feature (a feature on a much smaller scale than the
    largest keeps little of its detail), or, with too little to learn anything, a
    public fallback box is used. The guarantee is intact; the accuracy suffers. Pass
    ``bounds=`` from domain knowledge to silence it.

    Examples
    --------
    Wine's 13 features range from 0.1 to 1680; 178 records are too few for a private
    range per feature at epsilon 1:

    >>> import warnings
    >>> from sklearn.datasets import load_wine
    >>> from skdp.naive_bayes import GaussianNB
    >>> X, y = load_wine(return_X_y=True)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     model = GaussianNB(classes=[0, 1, 2], random_state=0).fit(X, y)
    >>> [w.category.__name__ for w in caught]
    ['PublicBoundsWarning', 'ClippingWarning']
    >>> model.bounds_tier_
    2
    """


class BudgetExceededError(RuntimeError):
    """A privacy spend would take a budget past its cap.

    Raised *before* the mechanism draws its noise, so nothing is released.

    Examples
    --------
    >>> from skdp import BudgetAccountant, BudgetExceededError
    >>> from skdp.mechanisms import laplace
    >>> accountant = BudgetAccountant(epsilon=1.0)
    >>> try:
    ...     with accountant:
    ...         first = laplace(10.0, sensitivity=1, epsilon=0.5, random_state=0)
    ...         second = laplace(10.0, sensitivity=1, epsilon=0.75, random_state=0)
    ... except BudgetExceededError as exc:
    ...     print(exc)
    laplace would spend epsilon=0.75, delta=0, taking the budget to ... past its cap ...
    >>> accountant.spent  # the refused call spent nothing
    PrivacyBudget(epsilon=0.5, delta=0.0)
    """
