"""The installed package: type stubs beside the extension, covering every public name."""

import importlib.resources
import re

import cnda


def test_stubs_are_installed_and_name_every_public_member():
    package = importlib.resources.files("cnda")
    assert (package / "py.typed").is_file()
    stub = (package / "__init__.pyi").read_text()
    declared = set(re.findall(r"^(?:def |class )?(\w+)(?:\(|:| =)", stub, flags=re.M))
    public = {name for name in dir(cnda) if not name.startswith("__") and not name.startswith("cnda")}
    assert public <= declared, f"missing from cnda.pyi: {sorted(public - declared)}"


def test_help_shows_the_stubs_docstrings():
    """The module's, cnda.stencil's, cnda.Stencil's and the other documented entry points' runtime
    docstrings are the stubs' (python/build.rs takes them from cnda.pyi): help() shows it all."""
    import ast
    import inspect

    stub = ast.parse((importlib.resources.files("cnda") / "__init__.pyi").read_text())
    documented = {"stencil": cnda.stencil, "solve": cnda.solve, "pad": cnda.pad, "from_numpy": cnda.from_numpy}
    for node in stub.body:
        name = getattr(node, "name", None)
        if name in documented:  # the first of overloads
            assert inspect.getdoc(documented.pop(name)) == ast.get_docstring(node), name
        if name == "Stencil":
            assert inspect.getdoc(cnda.Stencil) == ast.get_docstring(node)
            steps = next(m for m in node.body if getattr(m, "name", None) == "steps")
            assert inspect.getdoc(cnda.Stencil.steps) == ast.get_docstring(steps)
    assert not documented, f"not found in the stubs: {sorted(documented)}"
    assert inspect.getdoc(cnda) == ast.get_docstring(stub)
    assert len(inspect.getdoc(cnda.stencil).splitlines()) > 30
