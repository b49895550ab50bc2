"""The scripted server in a process of its own, answering with every method's canned replies.

The server (``debate_eval.agents.models.providers.scripted_server``) knows only the Scorer; each method
registers its replies when it is registered. This loads every method first, then serves as the server's own
``main`` does (the base URL on the first line of output, until standard input closes)::

    python scripts/scripted_endpoint.py --latency-ms 5
"""

from __future__ import annotations

import sys

from debate_eval.agents.models.providers.scripted_server import main
from debate_eval.debates.base import all_methods

if __name__ == "__main__":
    all_methods()  # registers every method's scripted replies
    sys.exit(main())
