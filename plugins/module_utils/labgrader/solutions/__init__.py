"""Reference solutions: the Machine and Workspace a lab's solution steps act on (machine.py) and
the one way a lab's solution (`Lab.solution`) is run (solve.py). Each lab's own steps live with
the lab (labs/<id>/)."""
