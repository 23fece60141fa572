"""Placeholder: being written."""


class ObjectivePerturbationLogistic:
    pass
