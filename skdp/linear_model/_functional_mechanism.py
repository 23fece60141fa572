"""Placeholder: being written."""


class FunctionalMechanismRegressor:
    pass


class FunctionalMechanismClassifier:
    pass
