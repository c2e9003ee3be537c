"""The report's formats, one module per format (registry.py lists them and says their interface).

This package imports none of them: `lab check` on a learner's VM imports learner_text alone, and
index_html needs jinja2, which the VM's grader runtime does not have (docs/real-vm.md, defect 4).
"""
