"""A cap on how many examples of a property test end in a refusal.

A property test that returns early on a refusal checks nothing for that example; one that
refuses every example passes while checking nothing at all. Counting both and failing over a
measured share makes a regression that refuses (nearly) everything fail loudly.
"""

from __future__ import annotations

__all__ = ["RefusalShare"]


class RefusalShare:
    def __init__(self, what: str, at_most: float, *, at_least_tried: int) -> None:
        self.what = what
        self.at_most = at_most
        self.at_least_tried = at_least_tried
        self.tried = 0
        self.refused = 0

    def example(self) -> None:
        self.tried += 1

    def refusal(self) -> None:
        self.refused += 1

    def check(self) -> None:
        assert self.tried >= self.at_least_tried, f"{self.what}: only {self.tried} examples ran"
        share = self.refused / self.tried
        assert share <= self.at_most, (
            f"{self.what}: {self.refused} of {self.tried} examples refused ({share:.0%}), over the cap of "
            f"{self.at_most:.0%}: the property was checked on too few of them"
        )
