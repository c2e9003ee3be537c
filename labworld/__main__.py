"""CLI: python -m labworld {materialize,materialize-class,serve,show,record} ..."""

from __future__ import annotations

import argparse
import json
import sys

from . import WorldError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m labworld", description=__doc__)
    sub = parser.add_subparsers(dest="cmd", required=True)

    p = sub.add_parser("materialize", help="build one world for one host: OUT/HOST/")
    p.add_argument("world")
    p.add_argument("--host", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--api-url", default="http://127.0.0.1:8001",
                   help="base URL of the fake API server; the kubeconfig gets <api-url>/h/<host>")
    p.add_argument("--json", action="store_true", help="print the summary (commit shas) as JSON")

    p = sub.add_parser("materialize-class", help="build every host of a class file")
    p.add_argument("class_file")
    p.add_argument("--out", required=True)
    p.add_argument("--api-url", default="http://127.0.0.1:8001")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("serve", help="serve OUT/<host>/cluster.json at /h/<host>/")
    p.add_argument("--root", required=True)
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--port-file")
    p.add_argument("--no-auth", action="store_true", help="do not check the bearer token")

    p = sub.add_parser("show", help="print a world after `extends` merging (not rendered)")
    p.add_argument("world")

    p = sub.add_parser("record", help="record what grading LAB reads on this machine into a world file")
    p.add_argument("--lab", action="append", required=True, help="a lab id (repeat for several labs)")
    p.add_argument("--out", required=True, help="the world file to write")
    from .record import RECORD_OPTIONS, grader_defaults
    defaults = grader_defaults()  # lab_grade's option names and defaults (labgrader/runner.py)
    for name, (kind, text) in RECORD_OPTIONS.items():
        p.add_argument("--" + name.replace("_", "-"), type=kind, default=defaults.get(name), help=text)

    args = parser.parse_args(argv)
    try:
        if args.cmd == "materialize":
            from .materialize import materialize
            summary = materialize(args.world, args.host, args.out, args.api_url)
            if args.json:
                print(json.dumps(summary, indent=2))
        elif args.cmd == "materialize-class":
            from .materialize import materialize_class
            result = materialize_class(args.class_file, args.out, args.api_url)
            if args.json:
                print(json.dumps(result, indent=2))
        elif args.cmd == "serve":
            from .server import serve
            serve(args.root, args.port, args.port_file, check_token=not args.no_auth)
        elif args.cmd == "record":
            from .record import dump, record, site_options
            world = record(args.lab, args.kubeconfig, site_options(args), args.api_timeout, args.max_file_bytes,
                           args.time_budget)
            size = dump(world, args.out)
            print(f"labworld: recorded {', '.join(dict.fromkeys(args.lab))} into {args.out} ({size} bytes)",
                  file=sys.stderr)
        elif args.cmd == "show":
            import yaml

            from .world import load, validate
            world = json.loads(json.dumps(validate(load(args.world), args.world)))  # no YAML aliases
            print(yaml.safe_dump(world, sort_keys=False, allow_unicode=True), end="")
    except WorldError as exc:
        print(f"labworld: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"labworld: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
