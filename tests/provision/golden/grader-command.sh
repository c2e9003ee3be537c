#!/bin/sh
# Ansible managed
# lab check [LAB] [STEP] [--lang en|ja|ko]: check your lab work on this VM. Read-only: it runs the
# grader's checks with this VM's admin kubeconfig and prints the result; exit 0 when all pass.
# -I: no PYTHONPATH, user site or current directory on the path; -B: no .pyc written.
exec /opt/lab-grader/venv/bin/python -I -B -c 'import sys; sys.path.insert(0, sys.argv.pop(1)); from ansible_collections.gitops_lab.grader.plugins.module_utils.labgrader.lab_command import main; main()' \
  /opt/lab-grader/lib --config /opt/lab-grader/lab-check.json "$@"
