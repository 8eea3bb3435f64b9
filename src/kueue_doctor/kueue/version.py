"""Kueue release numbers: what a tag means and how releases order."""
from __future__ import annotations

import re
from typing import NamedTuple

from ..errors import InputError

# Pre-release and build suffixes ("-devel", "-rc.1", "+abc") are read as the release they lead
# to: a v0.14.0-rc.0 already carries what v0.14.0 carries, which is all the model needs.
_TAG = re.compile(r"v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-+].*)?")


class Version(NamedTuple):
    """A release as (major, minor, patch); a tuple so that it orders and compares with tuples."""

    major: int
    minor: int
    patch: int = 0

    @property
    def line(self) -> tuple[int, int]:
        """The release branch (release-0.13 is line (0, 13)), which backports are made to."""
        return self.major, self.minor

    @property
    def label(self) -> str:
        return f"v{self.major}.{self.minor}.{self.patch}"


# The unreleased v0.20 line at the upstream commit the reference notes and conformance cases
# come from: what "no version given" means.
LATEST = Version(0, 20, 0)


def parse_version(text: str) -> Version:
    m = _TAG.fullmatch(str(text).strip())
    if not m:
        raise InputError(f"not a Kueue version: {text!r} (expected e.g. 0.13.2)", field="kueue.version")
    return Version(int(m.group(1)), int(m.group(2)), int(m.group(3) or 0))
