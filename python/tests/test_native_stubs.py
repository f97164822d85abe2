"""python/hookbridge/_native.pyi describes the built extension: the same module-level names, the
same classes, and for each class the same public methods and properties, with the same parameter
names (the extension's text signatures)."""

import ast
import inspect
from pathlib import Path

import hookbridge._native as native

STUB = Path(native.__file__).resolve().parent / "_native.pyi"
if not STUB.exists():  # an editable install keeps the stub in the source tree
    STUB = Path(__file__).resolve().parents[1] / "hookbridge" / "_native.pyi"


def stub_tree():
    return ast.parse(STUB.read_text())


def stubbed():
    """{name: None for a value or function, {member: params} for a class}."""
    out = {}
    for node in stub_tree().body:
        if isinstance(node, ast.AnnAssign):
            out[node.target.id] = None
        elif isinstance(node, ast.FunctionDef):
            out[node.name] = [a.arg for a in node.args.args]
        elif isinstance(node, ast.ClassDef):
            members = {}
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    members[item.name] = [a.arg for a in item.args.args]
            out[node.name] = members
    return out


def public(name):
    """Not a dunder, except the two the stub declares."""
    return not (name.startswith("__") and name.endswith("__")) or name in ("__version__", "__call__")


def test_module_level_names_match():
    runtime = {n for n in dir(native) if public(n) and n != "__doc__"}
    runtime.discard("__all__")
    assert set(stubbed()) == runtime


def text_params(obj):
    sig = getattr(obj, "__text_signature__", None)
    if not sig:
        return None
    params = sig.strip("()").replace(" ", "").split(",")
    return [p.split("=")[0].lstrip("*$") for p in params if p and p not in ("/", "*")]


def test_functions_and_methods_match_their_signatures():
    for name, members in stubbed().items():
        obj = getattr(native, name)
        if members is None:
            continue
        if isinstance(members, list):  # a function
            assert text_params(obj) == members, name
            continue
        runtime = {m for m in vars(obj) if public(m)}
        declared = {m for m in members if m != "__new__"}
        assert declared == runtime, f"{name}: stub {sorted(declared)} vs runtime {sorted(runtime)}"
        for member, params in members.items():
            attr = inspect.getattr_static(obj, member)
            if isinstance(attr, property) or type(attr).__name__ == "getset_descriptor":
                continue
            runtime_params = text_params(getattr(obj, member))
            # Dunders have the slot's generic signature (`*args, **kwargs`): names only for them.
            if runtime_params is not None and not member.startswith("__"):
                assert runtime_params == params, f"{name}.{member}: {runtime_params} vs {params}"
