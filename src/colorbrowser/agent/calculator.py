"""Exact arithmetic for the ``calculate`` action.

Models get sums of prices wrong; this gives them a deterministic tool. The
expression is parsed with ``ast`` and walked against a whitelist, and every number
becomes a ``Decimal``, so ``0.1 + 0.2`` is ``0.3`` and nothing in the text can run
code, touch names or allocate huge integers.
"""

from __future__ import annotations

import ast
import decimal
import re
from decimal import Decimal

MAX_LENGTH = 500
MAX_NODES = 300
MAX_EXPONENT = 1000

_CONTEXT = decimal.Context(prec=34, rounding=decimal.ROUND_HALF_EVEN, Emax=100_000, Emin=-100_000,
                           traps=[decimal.DivisionByZero, decimal.InvalidOperation,
                                  decimal.Overflow])
_FUNCTIONS = frozenset({"sum", "min", "max", "round", "abs"})
_CURRENCY = re.compile(r"[$€£¥]")
_GROUPED = re.compile(r"(?<![\d.])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d,])")


class CalculationError(ValueError):
    """The expression is not plain arithmetic, or its value cannot be computed."""


def _apply(op: ast.operator, a: Decimal, b: Decimal) -> Decimal:
    if isinstance(op, ast.Add):
        return _CONTEXT.add(a, b)
    if isinstance(op, ast.Sub):
        return _CONTEXT.subtract(a, b)
    if isinstance(op, ast.Mult):
        return _CONTEXT.multiply(a, b)
    if isinstance(op, ast.Div):
        return _CONTEXT.divide(a, b)
    if isinstance(op, ast.FloorDiv):
        return _CONTEXT.divide(a, b).to_integral_value(rounding=decimal.ROUND_FLOOR)
    if isinstance(op, ast.Mod):  # Python's sign rule: the result takes the divisor's sign
        return _CONTEXT.subtract(a, _CONTEXT.multiply(b, _apply(ast.FloorDiv(), a, b)))
    if isinstance(op, ast.Pow):
        if abs(b) > MAX_EXPONENT:
            raise CalculationError(f"exponent {b} is too large (limit {MAX_EXPONENT})")
        if abs(a) > 1 and b > 0 and (a.adjusted() + 1) * b > 10_000:
            raise CalculationError("result is too large")
        return _CONTEXT.power(a, b)
    raise CalculationError(f"operator {type(op).__name__} is not allowed")


def _round(value: Decimal, places: Decimal | None = None) -> Decimal:
    digits = 0 if places is None else int(places)
    if places is not None and places != digits:
        raise CalculationError("round() needs a whole number of places")
    if abs(digits) > 30:
        raise CalculationError("round() places out of range")
    return value.quantize(Decimal(1).scaleb(-digits), rounding=decimal.ROUND_HALF_UP,
                          context=_CONTEXT)


def _flatten(args: list[Decimal | list[Decimal]]) -> list[Decimal]:
    out: list[Decimal] = []
    for a in args:
        out.extend(a if isinstance(a, list) else [a])
    if not out:
        raise CalculationError("needs at least one number")
    return out


def _call(name: str, args: list[Decimal | list[Decimal]]) -> Decimal:
    if name == "sum":
        total = Decimal(0)
        for v in _flatten(args):
            total = _CONTEXT.add(total, v)
        return total
    if name == "min":
        return min(_flatten(args))
    if name == "max":
        return max(_flatten(args))
    if name in {"abs", "round"}:
        if any(isinstance(a, list) for a in args) or not 1 <= len(args) <= (2 if name == "round"
                                                                             else 1):
            raise CalculationError(f"{name}() got the wrong arguments")
        scalars = [a for a in args if isinstance(a, Decimal)]
        return abs(scalars[0]) if name == "abs" else _round(*scalars)
    raise AssertionError(name)


def _eval(node: ast.AST) -> Decimal | list[Decimal]:
    if isinstance(node, ast.Expression):
        return _eval(node.body)
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, int | float):
            raise CalculationError(f"{node.value!r} is not a number")
        return Decimal(str(node.value))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.UAdd | ast.USub):
        value = _scalar(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp):
        return _apply(node.op, _scalar(node.left), _scalar(node.right))
    if isinstance(node, ast.List | ast.Tuple):
        return [_scalar(e) for e in node.elts]
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.keywords or node.func.id not in _FUNCTIONS:
            raise CalculationError("only sum, min, max, round and abs can be called")
        return _call(node.func.id, [_eval(a) for a in node.args])
    if isinstance(node, ast.Name):
        raise CalculationError(f"names such as {node.id!r} are not allowed; use numbers")
    raise CalculationError(f"{type(node).__name__} is not allowed in arithmetic")


def _scalar(node: ast.AST) -> Decimal:
    value = _eval(node)
    if isinstance(value, list):
        raise CalculationError("a list can only be passed to sum, min or max")
    return value


def _normalise(expression: str) -> str:
    text = _CURRENCY.sub("", expression).replace("×", "*").replace("÷", "/").replace("−", "-")
    # "1,234.50" is a grouped number only where no function could take a comma list.
    if not re.search(r"[a-z_]\s*\(", text, re.I):
        text = _GROUPED.sub(lambda m: m.group(0).replace(",", ""), text)
    return text.strip()


def format_number(value: Decimal) -> str:
    if abs(value) >= Decimal("1e30"):
        return f"{value.normalize(_CONTEXT):E}"
    if value and abs(value) < Decimal("1e-9"):  # 12 decimal places would print 0
        return f"{decimal.Context(prec=13).plus(value).normalize():E}"
    if value == value.to_integral_value():
        return f"{value.quantize(Decimal(1), context=_CONTEXT):f}"
    text = f"{value.normalize(_CONTEXT):f}"
    if "." in text and len(text.split(".")[1]) > 12:
        text = f"{_round(value, Decimal(12)).normalize(_CONTEXT):f}"
    return text


def calculate(expression: str) -> str:
    """Evaluate plain arithmetic; raise CalculationError with a reason the model can act on."""
    if not isinstance(expression, str) or not expression.strip():
        raise CalculationError("empty expression")
    if len(expression) > MAX_LENGTH:
        raise CalculationError(f"expression longer than {MAX_LENGTH} characters")
    text = _normalise(expression)
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        raise CalculationError(f"not an arithmetic expression: {expression!r}") from None
    if sum(1 for _ in ast.walk(tree)) > MAX_NODES:
        raise CalculationError("expression is too long")
    try:
        value = _scalar(tree)
    except decimal.DivisionByZero:
        raise CalculationError("division by zero") from None
    except (decimal.InvalidOperation, decimal.Overflow):
        raise CalculationError("the result is not a finite number") from None
    return format_number(value)
