"""The human report: a summary line, one verdict per property, then each violation with its witness.

Modelled on import-linter's contract report: what was checked, what held, and
for each failure the chain that breaks it with file, line and a fix hint.
"""

from __future__ import annotations

from collections.abc import Sequence

from verification.findings import PropertyViolation
from verification.nesting import Nesting
from verification.verify import Report

__all__ = ["render_text", "summary_line"]

_MARK = {
    "proved": "proved",
    "violated": "VIOLATED",
    "ignored": "ignored",
    "not declared": "-",
    "not applicable": "n/a",
}


def summary_line(report: Report) -> str:
    """One line: the machine, its size and the tally of verdicts.

    Example:
        >>> from verification.verify import verify
        >>> from verification._examples import ONE_STEP  # A --GO--> B, B terminal
        >>> summary_line(verify(ONE_STEP))
        'tiny: 2 states, 1 rows: all 12 checked properties proved'
    """
    checked = [v for v in report.verdicts if v.status not in ("not declared", "not applicable")]
    proved = sum(v.status == "proved" for v in checked)
    violated = sum(v.status == "violated" for v in checked)
    ignored = sum(v.status == "ignored" for v in checked)
    kind = "" if report.model.framework == "agentsm_fn" else f" ({report.model.framework})"
    head = f"{report.machine}{kind}: {report.states} states, {report.rows} rows: "
    if violated == 0 and ignored == 0:
        return head + f"all {proved} checked properties proved"
    count = len(report.counted)
    parts = [f"{violated} of {len(checked)} properties VIOLATED ({count} violation{'s' * (count != 1)})"]
    if ignored:
        parts.append(f"{ignored} ignored")
    parts.append(f"{proved} proved")
    return head + ", ".join(parts)


def _violation(v: PropertyViolation) -> list[str]:
    lines = [f"  {v.code} {v.prop.name}: {v.message}"]
    if v.ignored is not None:
        lines[0] += f"  [ignored: {v.ignored}]"
    if v.location is not None:
        lines.append(f"      at {v.location}")
    if v.witness is not None:
        lines.append(f"      witness: {v.witness.render()}")
    if v.hint:
        lines.append(f"      hint: {v.hint}")
    return lines


def _bound(report: Report) -> str:
    b = report.bound
    if b is None:
        return "step bound: none (termination not proved)"
    if not b.budgeted:
        return f"step bound: at most {b.before_first_unit} transitions per run (no cycles)"
    return (
        f"step bound: at most {b.per_budget_unit} transitions per budget unit "
        f"(budgeted: {', '.join(b.budgeted)}), {b.before_first_unit} before the first"
    )


def _nesting(n: Nesting) -> str:
    programs = ", ".join(n.programs)
    if n.depth is None:
        return f"children: nest without bound (SM018); programs: {programs}"
    return f"children: nested {n.depth} deep; programs: {programs}"


def render_text(reports: Sequence[Report]) -> str:
    """The full human report for ``reports``, ending in a newline.

    Example:
        >>> from verification.verify import verify
        >>> from verification._examples import ONE_STEP  # A --GO--> B, B terminal
        >>> print(render_text([verify(ONE_STEP)]).splitlines()[-1])
        agentsm-verify: 1 machine(s), all properties proved
    """
    out: list[str] = []
    for report in reports:
        out.append(summary_line(report))
        for verdict in report.verdicts:
            mark = _MARK[verdict.status]
            extra = f" ({verdict.violations})" if verdict.violations else ""
            why = f": {verdict.reason}" if verdict.reason else ""
            out.append(f"  {mark:<9} {verdict.code} {verdict.name}{extra}{why}")
        sound = "sound" if report.sound else f"NOT sound ({', '.join(report.soundness_failures) or 'SM001'})"
        strong = "strongly sound" if report.strongly_sound else "not strongly sound"
        out.append(f"  soundness: {sound}; {strong}")
        out.append(f"  {_bound(report)}")
        if report.nesting is not None:
            out.append(f"  {_nesting(report.nesting)}")
        for v in report.violations:
            out.extend(_violation(v))
        out.append("")
    failed = [r for r in reports if not r.ok]
    if failed:
        total = sum(len(r.counted) for r in failed)
        out.append(f"agentsm-verify: {len(failed)} of {len(reports)} machine(s) FAILED, {total} violation(s)")
    else:
        out.append(f"agentsm-verify: {len(reports)} machine(s), all properties proved")
    return "\n".join(out) + "\n"
