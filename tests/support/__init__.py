"""Test and demo fixtures that do not ship in the package: fake endpoints (``rate_limited_server``,
``batch_server``), varied scripted replies and the scripted runs made with them (``varied_replies``,
``demo_runs``), the headless-Chromium driver (``chromium_driver``), and the optional integrations' libraries
(``integrations``: skip without them, fail without them in CI's venv of them).

Imported as the top-level package ``support``: the tests get ``tests/`` on ``sys.path`` from pytest's
``pythonpath`` setting (pyproject.toml); a script puts it there itself before importing, one line::

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # tests/support (parents[2] in demos/)

A fake endpoint runs in a process of its own as a file: ``python tests/support/rate_limited_server.py FLAGS``.
"""

from debate_eval.debates.base import all_methods

# The scripted server knows only the Scorer; each method registers its agents' canned replies when it is
# registered. The fake endpoints here answer every built-in method's agents, whichever test runs first.
all_methods()
