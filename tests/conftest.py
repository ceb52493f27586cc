"""Puts this folder on ``sys.path`` (pytest does so for a folder with a conftest), so the shared
helper modules here (``cloud_scenarios``, ``random_instances``, ...) import from every test
folder, whichever tests run."""
