"""Test-suite set-up shared by every folder.

Puts this folder on ``sys.path`` (pytest does so for a folder with a conftest), so the shared
helper modules here (``cloud_scenarios``, ``random_instances``, ...) import from every test
folder, whichever tests run.

Loads the hypothesis profile (docs/testing.md): ``ci`` unless ``HYPOTHESIS_PROFILE`` names
another. ``ci`` is derandomised: every run tries the same examples, so a change that breaks an
invariant is caught on every run or on none, never at some seeds only. ``thorough`` draws new
examples each run, ten times as many (:func:`property_budget.examples`), for on-demand bug
hunts.
"""

from property_budget import load_profile

load_profile()
