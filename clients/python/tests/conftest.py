"""The tests import the package from the source tree, or, with GATEHOUSE_TEST_INSTALLED=1 (make test-python-client),
the one installed in the virtualenv, so that what pip installed is what is tested."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(os.path.dirname(HERE), "src")
INSTALLED = os.environ.get("GATEHOUSE_TEST_INSTALLED") == "1"
sys.path.insert(0, HERE)
if not INSTALLED:
    sys.path.insert(0, SRC)
