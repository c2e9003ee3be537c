#!/usr/bin/env python3
"""Print kwok's pod-complete Stage narrowed to pods without "exit 1", plus a pod-fail-exit1 Stage.

Usage: kwok_stages.py PATH/TO/pod-complete.yaml  (the file shipped in the kwok module)

A pod whose containers' command + args joined contain "exit 1" becomes phase Failed with exit
code 1 once it is Running; every other Running pod owned by a Job completes (kwok's own stage).
The two selectors are mutually exclusive because kwok picks randomly among matching stages.
"""

import sys

EXIT1 = '[.spec.containers[] | ((.command // []) + (.args // [])) | join(" ")] | any(test("exit 1"))'

FAIL_STAGE = """apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-fail-exit1
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: 'DoesNotExist'
    - key: '.status.phase'
      operator: 'In'
      values:
      - 'Running'
    - key: '@EXPR@'
      operator: 'In'
      values:
      - 'true'
  next:
    statusTemplate: |
      {{ $now := Now }}
      conditions:
      - lastTransitionTime: {{ $now | Quote }}
        status: "False"
        type: Ready
        reason: PodFailed
      - lastTransitionTime: {{ $now | Quote }}
        status: "False"
        type: ContainersReady
        reason: PodFailed
      containerStatuses:
      {{ range .spec.containers }}
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: false
        restartCount: 0
        started: false
        state:
          terminated:
            exitCode: 1
            finishedAt: {{ $now | Quote }}
            reason: Error
            startedAt: {{ $now | Quote }}
      {{ end }}
      phase: Failed
"""


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as fh:
        text = fh.read()
    anchor = "      - 'Job'\n"
    if text.count(anchor) != 1 or "name: pod-complete" not in text:
        print("kwok_stages.py: unexpected pod-complete.yaml layout", file=sys.stderr)
        return 1
    extra = f"    - key: '{EXIT1}'\n      operator: 'NotIn'\n      values:\n      - 'true'\n"
    sys.stdout.write(text.replace(anchor, anchor + extra))
    sys.stdout.write("\n---\n")
    sys.stdout.write(FAIL_STAGE.replace("@EXPR@", EXIT1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
