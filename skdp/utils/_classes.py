"""The public class labels of a classifier, and each target's index among them."""

import warnings

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import column_or_1d

from skdp.exceptions import PrivacyLeakWarning

__all__ = ["resolve_classes"]

# rows per block of the label lookup: np.unique's sort and inverse over all of y at once
# held about five arrays of its size (39 MiB at 10^6 int64 labels)
_BLOCK = 2**16


def resolve_classes(classes, y, *, estimator_name, stacklevel=3):
    """The public class labels and each target's index among them.

    Parameters
    ----------
    classes : None or array-like
        The public label set. ``None`` takes the labels that occur in ``y``, which
        reveals which labels occur: a :class:`~skdp.exceptions.PrivacyLeakWarning`
        says so.
    y : array-like of shape (n_samples,)
        The (private) targets.
    estimator_name : str
        Named in the error messages.
    stacklevel : int, default=3
        Of the warning, so that it points at the user's ``fit`` call.

    Returns
    -------
    classes : ndarray of shape (n_classes,)
        The public labels (those of ``y`` when ``classes`` is None).
    codes : ndarray of shape (n_samples,), int64
        The index in ``classes`` of each target.

    Raises
    ------
    ValueError
        When ``classes`` has duplicates or fewer than two labels, or ``y`` has a label
        that is not in ``classes``.

    Examples
    --------
    >>> from skdp.utils.validation import resolve_classes
    >>> resolve_classes(["a", "b"], ["b", "b", "a"], estimator_name="demo")
    (array(['a', 'b'], dtype='<U1'), array([1, 1, 0]))
    """
    y = column_or_1d(y, warn=True)
    check_classification_targets(y)
    if classes is None:
        warnings.warn(
            "classes=None: the class labels are taken from y, which reveals which "
            "labels occur. Pass the public list of classes.",
            PrivacyLeakWarning,
            stacklevel=stacklevel,
        )
        classes = np.unique(y)
    else:
        classes = np.asarray(classes)
        if len(np.unique(classes)) != len(classes):
            raise ValueError("classes contains duplicates")
    if len(classes) < 2:
        raise ValueError(f"{estimator_name} needs at least 2 classes; got {len(classes)} class")
    codes = _codes(classes, y)
    if (codes < 0).any():
        unknown = sorted({str(v) for v, c in zip(y, codes, strict=True) if c < 0})
        raise ValueError(f"y has labels not in classes: {unknown[:10]}")
    return classes, codes


def _codes(classes, y):
    """The index in ``classes`` of each target (-1 where absent), a block at a time."""
    index = {c: i for i, c in enumerate(classes.tolist())}
    codes = np.empty(len(y), dtype=np.int64)
    for start in range(0, len(y), _BLOCK):
        block = slice(start, start + _BLOCK)
        labels, inverse = np.unique(y[block], return_inverse=True)  # each distinct label once
        lookup = np.array([index.get(v, -1) for v in labels.tolist()], dtype=np.int64)
        codes[block] = lookup[inverse.reshape(-1)]
    return codes
