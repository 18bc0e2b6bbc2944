"""What both engines must agree on after a phase, in one comparable shape."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Outcome:
    """The board after one phase, engine-neutral.

    ``dislodged`` holds every unit dislodged by the phase with the locations it
    may retreat to; ``next_phase`` is the next phase that needs orders.
    """

    units: frozenset[tuple[str, str]]  # (power, "F SPA/NC")
    dislodged: frozenset[tuple[str, str, tuple[str, ...]]]  # (power, unit, sorted retreats)
    centers: frozenset[tuple[str, str]]  # (power, "SPA")
    next_phase: str

    def differences(self, peer: "Outcome") -> list[str]:
        """Human-readable lines, ours first; empty when the outcomes agree."""
        lines: list[str] = []
        for label, ours_set, peer_set in (
            ("unit", self.units, peer.units),
            ("dislodged", self.dislodged, peer.dislodged),
            ("centre", self.centers, peer.centers),
        ):
            for item in sorted(ours_set - peer_set):
                lines.append(f"{label} only in ours: {_show(item)}")
            for item in sorted(peer_set - ours_set):
                lines.append(f"{label} only in peer: {_show(item)}")
        if self.next_phase != peer.next_phase:
            lines.append(f"next phase: ours {self.next_phase}, peer {peer.next_phase}")
        return lines

    def provinces_involved(self, peer: "Outcome") -> frozenset[str]:
        """Provinces named by the differences: used to pick the orders worth showing."""
        names: set[str] = set()
        for _, text in (self.units ^ peer.units) | (self.centers ^ peer.centers):
            names.add(text.split()[-1][:3])
        for _, unit, retreats in self.dislodged ^ peer.dislodged:
            names.add(unit.split()[-1][:3])
            names.update(loc[:3] for loc in retreats)
        return frozenset(names)


def _show(item: tuple) -> str:
    if len(item) == 3:
        power, unit, retreats = item
        return f"{power} {unit} (retreats: {', '.join(retreats) or 'none'})"
    return " ".join(item)
