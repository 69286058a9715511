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
