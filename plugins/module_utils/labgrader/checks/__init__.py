"""Check helpers the labs share: evidence files (evidence.py), git (git.py), Argo CD
Applications (argocd.py). A lab file holds only that lab's facts."""
