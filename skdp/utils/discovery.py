"""Find skdp's public estimators (the registry the common tests run over)."""

import importlib
import inspect
import pkgutil

__all__ = ["all_estimators"]

_TYPE_MIXINS = {
    "classifier": "ClassifierMixin",
    "regressor": "RegressorMixin",
    "cluster": "ClusterMixin",
    "transformer": "TransformerMixin",
}


def all_estimators(type_filter=None):
    """Every public skdp estimator class, as sorted ``(name, class)`` pairs.

    Walks the public modules of :mod:`skdp` (names without a leading underscore)
    and keeps the classes that derive from both
    :class:`~skdp.base.DifferentialPrivacyMixin` and
    :class:`sklearn.base.BaseEstimator`.

    Parameters
    ----------
    type_filter : {"classifier", "regressor", "cluster", "transformer"}, optional
        Keep only that kind of estimator.

    Returns
    -------
    list of (str, type)
        Class names and classes, sorted by name.

    Examples
    --------
    >>> from skdp.utils.discovery import all_estimators
    >>> isinstance(all_estimators(), list)
    True
    """
    import sklearn.base
    from sklearn.base import BaseEstimator

    import skdp
    from skdp.base import DifferentialPrivacyMixin

    if type_filter is not None and type_filter not in _TYPE_MIXINS:
        raise ValueError(f"type_filter must be one of {sorted(_TYPE_MIXINS)}, got {type_filter}")
    found = {}
    for module_info in pkgutil.walk_packages(skdp.__path__, prefix="skdp."):
        if any(part.startswith("_") for part in module_info.name.split(".")):
            continue
        module = importlib.import_module(module_info.name)
        for name, cls in inspect.getmembers(module, inspect.isclass):
            if (
                not name.startswith("_")
                and cls.__module__.startswith("skdp.")
                and issubclass(cls, DifferentialPrivacyMixin)
                and issubclass(cls, BaseEstimator)
                and not inspect.isabstract(cls)
            ):
                found[name] = cls
    if type_filter is not None:
        mixin = getattr(sklearn.base, _TYPE_MIXINS[type_filter])
        found = {name: cls for name, cls in found.items() if issubclass(cls, mixin)}
    return sorted(found.items())
