"""Lab grading framework: collect learner state once, judge it with small pure checks."""
