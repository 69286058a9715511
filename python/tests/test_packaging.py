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


# The names whose runtime docstrings python/build.rs takes from the stubs.
FROM_STUBS = ["stencil", "solve", "pad", "from_numpy", "sum", "matmul", "save", "load", "from_dlpack", "to_cuda",
              "cuda_device_count", "read_matrix_market", "write_matrix_market", "spmv", "stencil_matrix",
              "ContiguousND", "CudaArray", "StructuredND", "ElementType", "Export", "Stencil"]


def test_help_shows_the_stubs_docstrings():
    """The module's, cnda.stencil's, cnda.Stencil's and the other entry points' runtime docstrings
    are the stubs' (python/build.rs takes them from cnda.pyi): help() shows it all."""
    import ast
    import inspect

    stub = ast.parse((importlib.resources.files("cnda") / "__init__.pyi").read_text())
    wanted = {name for name in FROM_STUBS if hasattr(cnda, name)}  # the CUDA ones need feature cuda
    for node in stub.body:
        name = getattr(node, "name", None)
        if name in wanted:  # the first of overloads
            assert inspect.getdoc(getattr(cnda, name)) == ast.get_docstring(node), name
            wanted.discard(name)
        if name == "Stencil":
            steps = next(m for m in node.body if getattr(m, "name", None) == "steps")
            assert inspect.getdoc(cnda.Stencil.steps) == ast.get_docstring(steps)
    assert not wanted, f"not found in the stubs: {sorted(wanted)}"
    assert inspect.getdoc(cnda) == ast.get_docstring(stub)
    assert len(inspect.getdoc(cnda.stencil).splitlines()) > 30
