#!/usr/bin/python3
"""Checks a giftkeeper --json output against docs/json-output.schema.json.

usage: check-json-output.py SCHEMA DEFINITION [--lines] < OUTPUT

DEFINITION is one of the schema's $defs (presentList, present, upcoming, budget,
summary, history, occasionList, auditLine, export); with --lines every non-empty
line of the input is one document (audit --json). Prints each error with where it
is and exits 1 when any; needs Debian's python3-jsonschema (draft 2020-12).
"""

import json
import sys

import jsonschema


def main():
    schema_path, definition = sys.argv[1], sys.argv[2]
    lines = "--lines" in sys.argv[3:]
    with open(schema_path, encoding="utf-8") as file:
        schema = json.load(file)
    jsonschema.Draft202012Validator.check_schema(schema)
    if definition not in schema["$defs"]:
        sys.exit(f"no definition '{definition}' in {schema_path}")
    chosen = {key: schema[key] for key in ("$schema", "$id", "$defs")}
    chosen["$ref"] = "#/$defs/" + definition
    validator = jsonschema.Draft202012Validator(chosen)
    text = sys.stdin.read()
    documents = [line for line in text.splitlines() if line.strip()] if lines else [text]
    if not documents:
        sys.exit("no document to check")
    failed = False
    for number, document in enumerate(documents, start=1):
        for error in validator.iter_errors(json.loads(document)):
            where = "/".join(str(part) for part in error.absolute_path) or "(the document)"
            print(f"document {number}, {where}: {error.message}")
            failed = True
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
