"""What a recorded-run regression case can report: typed values, never exceptions.

::

    RegressionError
    ├── Divergence          the current code goes another way than the recording: the first step
    │                       where it asks for another effect, takes another row, or ends otherwise
    ├── RecordingInvalid    the file is not a recording this version reads (not JSON, a missing or
    │                       wrong field, another format, a value the codec cannot decode)
    ├── TargetUnusable      the machine to replay against cannot be imported, or is not a machine
    └── DurableError        exporting from (or re-recording through) a store failed
"""

from __future__ import annotations

import difflib
import enum
from typing import TypeAlias

import attrs

from agentsm_fn.durable import DurableError

__all__ = [
    "Divergence",
    "DivergenceKind",
    "RecordingInvalid",
    "RecordingProblem",
    "RegressionError",
    "TargetUnusable",
]


class DivergenceKind(enum.Enum):
    """What the current code does differently at the first step that differs."""

    REQUEST = "request"
    """It asks for another effect (or for one where the recording has none, or none where it has one)."""
    ROW = "row"
    """It takes another row of the table (another event, or another target state)."""
    FAILS = "fails"
    """It fails at a step where the recording went on (a handler raised or faulted, the cap was reached)."""
    END = "end"
    """It takes every step alike but ends otherwise: another status, failure or final memory."""


@attrs.frozen(kw_only=True)
class Divergence:
    """The first step where the current code differs from the recording, with the old and the new.

    ``recorded`` and ``replayed`` are what each asked for or did, as readable text (a request in
    the codec's JSON form, a row as ``STATE -EVENT-> TARGET``); :meth:`describe` shows both and
    their difference line by line.

    Example:
        >>> d = Divergence(source="refund.recording.json", kind=DivergenceKind.ROW, step=3, state="CHECK",
        ...                recorded="CHECK -APPROVED-> REFUND", replayed="CHECK -DENIED-> DONE")
        >>> print(d.describe())
        refund.recording.json: diverges at step 3 in state CHECK: takes another row
          recorded: CHECK -APPROVED-> REFUND
          now:      CHECK -DENIED-> DONE
    """

    source: str
    kind: DivergenceKind
    step: int
    state: str
    recorded: str
    replayed: str
    detail: str = ""
    seq: int = -1
    """The journal entry (effect) where it happened, or -1 for a row."""
    machine_changed: bool = False
    """The current machine's fingerprint differs from the recording's (a changed table or handler names)."""

    def headline(self) -> str:
        """The first line of :meth:`describe`."""
        what = {
            DivergenceKind.REQUEST: "asks for another effect",
            DivergenceKind.ROW: "takes another row",
            DivergenceKind.FAILS: "fails where the recording goes on",
            DivergenceKind.END: "ends otherwise",
        }[self.kind]
        seq = f" (effect {self.seq})" if self.seq >= 0 else ""
        changed = " [the machine's fingerprint changed]" if self.machine_changed else ""
        detail = f": {self.detail}" if self.detail else ""
        return (
            f"{self.source}: diverges at step {self.step}{seq} in state {self.state}: {what}{detail}{changed}"
        )

    def describe(self) -> str:
        """The step, the state, what the recording has and what the code does now, and their diff."""
        old, new = self.recorded.splitlines(), self.replayed.splitlines()
        if len(old) <= 1 and len(new) <= 1:
            return f"{self.headline()}\n  recorded: {self.recorded}\n  now:      {self.replayed}"
        diff = difflib.unified_diff(old, new, "recorded", "now", n=2, lineterm="")
        return "\n".join((self.headline(), *(f"  {line}" for line in diff)))


class RecordingProblem(enum.Enum):
    """Why a file is not a recording this version reads."""

    UNREADABLE = "unreadable"
    """The file cannot be read, or is not JSON."""
    FORMAT = "format"
    """It is not a recording, or one of another format version."""
    FIELD = "field"
    """A field is missing or has the wrong type."""
    VALUE = "value"
    """A stored value (memory, outcome) does not decode: an unknown class, another class version."""


@attrs.frozen(kw_only=True)
class RecordingInvalid:
    """A recording that cannot be used, naming the file and the field.

    Example:
        >>> RecordingInvalid(source="a.recording.json", problem=RecordingProblem.FIELD,
        ...                  field="effects[2].digest", detail="expected a hex string").describe()
        'a.recording.json: effects[2].digest: field: expected a hex string'
    """

    source: str
    problem: RecordingProblem
    detail: str
    field: str = ""

    def describe(self) -> str:
        """One line for logs and reports."""
        where = f"{self.field}: " if self.field else ""
        return f"{self.source}: {where}{self.problem.value}: {self.detail}"


@attrs.frozen(kw_only=True)
class TargetUnusable:
    """The machine a recording is replayed against cannot be used.

    Example:
        >>> TargetUnusable(name="app:AGENT", detail="app has no attribute AGENT").describe()
        'cannot replay against app:AGENT: app has no attribute AGENT'
    """

    name: str
    detail: str

    def describe(self) -> str:
        """One line for logs and reports."""
        return f"cannot replay against {self.name}: {self.detail}"


RegressionError: TypeAlias = Divergence | RecordingInvalid | TargetUnusable | DurableError
"""Everything a regression case, an export or a re-recording can report."""
