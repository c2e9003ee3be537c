"""Reference solutions: each lab's steps (labs/<id>/solution.py), listed in registry.py; the
Machine and Workspace they act on (machine.py) and the one way they are run (solve.py). Nothing is
imported here: a lab's solution imports machine.py, and the registry imports the solutions."""
