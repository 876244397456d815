"""The package from this checkout: python/ (its Python files) and, when it was built there and nothing
else provides it, build/python (the compiled quatstep._quatstep). ctest sets PYTHONPATH itself."""

import os
import sys

REPOSITORY = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
for path in (os.path.join(REPOSITORY, "build", "python"), os.path.join(REPOSITORY, "python")):
    if os.path.isdir(path) and path not in sys.path:
        sys.path.append(path)
