"""The core examples run offline and say what they promise."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_example(name: str) -> str:
    completed = subprocess.run(
        [sys.executable, str(ROOT / "examples" / name)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    return completed.stdout


def test_refund_workflow_runs_both_machines_and_replays() -> None:
    out = run_example("refund_workflow.py")
    assert "refunds: refund of 50 -> Paid" in out
    assert "refunds: refund of 900 -> Refused" in out
    assert "strict-refunds: refund of 50 -> Paid" in out
    assert "request AskManager" in out
    assert "replays from its journal" in out


def test_durable_orders_survive_a_sigkill_wait_for_approval_and_are_checked() -> None:
    out = run_example("durable_orders.py")
    assert "worker exit status -9" in out
    assert out.count("charging o-1") == 1 and out.count("charging o-2") == 1
    assert "o-2: receipt-o-2" in out
    assert "waits in APPROVING" in out
    assert "DIVERGES at step 1: it stopped in state APPROVING, which the machine no longer has" in out


def test_serve_approvals_answers_over_http_streams_the_rest_and_refuses_a_second_answer() -> None:
    out = run_example("serve_approvals.py")
    assert "waits in WaitingForHuman" in out and "serving the store at http://127.0.0.1:" in out
    assert "waits: AskHuman send_email" in out and "/answer: 202" in out
    assert out.count("[send_email]") == 1  # sent once, after the approval
    assert "WaitingForHuman --HumanApproved--> Acting" in out and "Finished Done" in out
    assert "final answer: Done: the team has been told" in out
    assert "a second answer: 409 answered_already" in out


def test_evals_capitals_judges_two_prompts_and_flags_the_regression() -> None:
    out = run_example("evals_capitals.py")
    assert "experiment terse: 4 case(s), 4 run(s)" in out and "passed 4/4 (100%)" in out
    assert "chatty against terse: 4 regressed, 0 improved, 0 unchanged, 0 added, 0 removed" in out


def test_invoice_extraction_returns_an_invoice_after_one_correction_and_refuses_another_customers() -> None:
    out = run_example("invoice_extraction.py")
    assert (
        "'Extract the invoice of order 9 for customer bob@example.com.' -> refused: "
        "I can only show you your own invoices. (asks for the invoices of bob@example.com)"
    ) in out
    assert "GuardingInput    InputAllowed             -> Planning      step=0 checked=own-invoices" in out
    assert "invoice INV-2024-07 for ada@example.com: 7.20 EUR" in out
    assert "corrections sent back: 1" in out
    assert "step 2: $: the total 7.5 is not the sum of the lines (7.2)" in out
    assert "OutputInvalid" in out and "RetryOutput" in out and "LlmFinalAnswer" in out


def test_support_chat_remembers_refuses_a_message_while_a_refund_waits_and_forks_on_an_edit() -> None:
    out = run_example("support_chat.py")
    assert "user: What is my name?\n  agent: Your name is Ada, as you told me." in out  # from turn 0
    assert "  a message meanwhile: 409 thread_busy" in out
    assert "  approved: Order B-42 is refunded, Ada." in out
    assert (
        "user edits turn 1: Where is my order B-42?\n  agent: Order B-42 was delivered yesterday, Ada." in out
    )
    assert "forked: support-1~" in out and "from support-1 at turn 1" in out
    assert (
        "the fork's conversation: ['My name is Ada.', 'Where is my order B-42?', 'What is my name?']" in out
    )
    assert "support-1 is left as it was: 4 turns" in out


def test_team_orders_checks_one_order_as_a_child_and_a_batch_as_a_fan_out() -> None:
    out = run_example("team_orders.py")
    assert "one: DONE, team_orders:CHECK one.c0 finished in OK" in out
    assert "many: GAVE_UP" in out and "many.c0.1 finished in REFUSED" in out
    assert "many.c0.2 failed: handler of CHECKING failed: order 13 is unlucky" in out


def test_triage_refunds_hands_off_over_agui_and_the_refund_is_approved_there() -> None:
    out = run_example("triage_refunds.py")
    assert (
        "steps: Idle, Planning, Acting, turn-1.c1/Idle, turn-1.c1/Planning, turn-1.c1/WaitingForHuman" in out
    )
    assert "interrupt: turn-1.c1#1 issue_refund(" in out
    assert "approved; RUN_FINISHED: Done: order B-42 is refunded." in out
    assert "refunds issued: ['B-42']" in out
