"""The proof tables: tasks per app (task group) and per evaluator kind, all proven?"""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from colorbrowser.arena.prove import KINDS, WANT, Proof, counts


def proof_tables(proofs: list[Proof]) -> list[Table]:
    by_group = Table(title="arena tasks by app", box=None)
    for col in ("app", "tasks", "proven", *(f"{k} {WANT[k]:g}" for k in KINDS)):
        by_group.add_column(col, justify="left" if col == "app" else "right")
    groups = counts(proofs, lambda p: [p.group])
    for group in sorted(groups):
        mine = [p for p in proofs if p.group == group]
        row = [group, str(len(mine)), str(groups[group]["proven"])]
        row += [str(sum(p.rewards.get(k) == WANT[k] for p in mine)) for k in KINDS]
        by_group.add_row(*row)
    by_group.add_row("all", str(len(proofs)), str(sum(p.proven for p in proofs)),
                     *(str(sum(p.rewards.get(k) == WANT[k] for p in proofs)) for k in KINDS))
    by_kind = Table(title="arena tasks by evaluator kind", box=None)
    for col in ("evaluator", "tasks", "proven"):
        by_kind.add_column(col, justify="left" if col == "evaluator" else "right")
    kinds = counts(proofs, lambda p: p.eval_types)
    for kind in sorted(kinds):
        by_kind.add_row(kind, str(kinds[kind]["total"]), str(kinds[kind]["proven"]))
    return [by_group, by_kind]


def print_proofs(proofs: list[Proof], console: Console) -> int:
    """Print the tables and every unproven task; returns how many are proven."""
    for table in proof_tables(proofs):
        console.print(table)
        console.print()
    for proof in proofs:
        if not proof.proven:
            console.print(f"[red]unproven[/] {proof.task}: {proof.why()}", markup=True,
                          highlight=False)
    proven = sum(p.proven for p in proofs)
    console.print(f"proven {proven}/{len(proofs)}")
    return proven
