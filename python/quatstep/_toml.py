"""A small TOML writer for scenarios given as dicts (quatstep.run({...})): tables, arrays of tables,
numbers (NumPy scalars and arrays too), booleans, strings and arrays of them."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(k):
    if not isinstance(k, str):
        raise TypeError(f"TOML keys are strings, got {k!r}")
    return k if _BARE_KEY.match(k) else json.dumps(k)


def _plain(v):
    """NumPy scalars and arrays as Python values."""
    if hasattr(v, "tolist") and not isinstance(v, (str, bytes)):
        return v.tolist()
    return v


def _value(v, where):
    v = _plain(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)  # a TOML basic string: JSON's escapes are TOML's
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x, where) for x in v) + "]"
    raise TypeError(f"{where}: cannot write {type(v).__name__} to TOML")


def _is_table_array(v):
    v = _plain(v)
    return isinstance(v, (list, tuple)) and len(v) > 0 and all(isinstance(x, Mapping) for x in v)


def _table(lines, path, table):
    for k, v in table.items():
        if not isinstance(v, Mapping) and not _is_table_array(v):
            lines.append(f"{_key(k)} = {_value(v, '.'.join(path + [k]))}")
    for k, v in table.items():
        if isinstance(v, Mapping):
            lines.append("")
            lines.append("[" + ".".join(_key(p) for p in path + [k]) + "]")
            _table(lines, path + [k], v)
        elif _is_table_array(v):
            for item in _plain(v):
                lines.append("")
                lines.append("[[" + ".".join(_key(p) for p in path + [k]) + "]]")
                _table(lines, path + [k], item)


def dumps(table: Mapping) -> str:
    """The TOML text of a dict of tables (dicts), arrays of tables (lists of dicts) and values."""
    if not isinstance(table, Mapping):
        raise TypeError(f"a scenario is a dict of tables, got {type(table).__name__}")
    lines: list[str] = []
    _table(lines, [], table)
    return "\n".join(lines).lstrip("\n") + "\n"
