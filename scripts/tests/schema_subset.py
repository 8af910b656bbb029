"""A validator of the JSON Schema keywords kcidb-v5.3.schema.json uses, no more.

type, properties, required, additionalProperties (false), items, enum,
const, minimum, maximum, maxLength, pattern (searched, as JSON Schema
says), and $ref to "#/$defs/NAME". `format` is an annotation here, as in
JSON Schema's default; any other keyword is refused, so that a schema
growing past this subset cannot pass unchecked. Debian's
python3-jsonschema, when installed, checks the same document too
(tests/test_report.py).
"""

from __future__ import annotations

import re
from typing import Any, Dict, List

KNOWN = {'type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const',
         'minimum', 'maximum', 'maxLength', 'pattern', '$ref', 'format', 'title', '$comment',
         '$defs'}
TYPES = {'object': dict, 'array': list, 'string': str, 'boolean': bool}


def _is(value: Any, kind: str) -> bool:
    if kind in ('integer', 'number'):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        return kind == 'number' or float(value).is_integer()
    return isinstance(value, TYPES[kind])


def problems(schema: Dict[str, Any], value: Any, root: Dict[str, Any] | None = None,
             where: str = '$') -> List[str]:
    """Everything in `value` the schema forbids, one line each ([] when valid)."""
    root = root or schema
    unknown = set(schema) - KNOWN
    if unknown:
        raise ValueError(f'{where}: schema keywords this validator does not know: {unknown}')
    if '$ref' in schema:
        name = schema['$ref'].removeprefix('#/$defs/')
        return problems(root['$defs'][name], value, root, where)
    if 'type' in schema and not _is(value, schema['type']):
        return [f'{where}: {type(value).__name__}, not {schema["type"]}']
    bad: List[str] = []
    if 'enum' in schema and value not in schema['enum']:
        bad.append(f'{where}: {value!r} is not one of {schema["enum"]}')
    if 'const' in schema and value != schema['const']:
        bad.append(f'{where}: {value!r} is not {schema["const"]!r}')
    if 'minimum' in schema and value < schema['minimum']:
        bad.append(f'{where}: {value} < {schema["minimum"]}')
    if 'maximum' in schema and value > schema['maximum']:
        bad.append(f'{where}: {value} > {schema["maximum"]}')
    if isinstance(value, str):
        if 'maxLength' in schema and len(value) > schema['maxLength']:
            bad.append(f'{where}: longer than {schema["maxLength"]}')
        if 'pattern' in schema and not re.search(schema['pattern'], value):
            bad.append(f'{where}: {value!r} does not match {schema["pattern"]}')
    if isinstance(value, list) and 'items' in schema:
        for i, item in enumerate(value):
            bad += problems(schema['items'], item, root, f'{where}[{i}]')
    if isinstance(value, dict):
        props = schema.get('properties', {})
        bad += [f'{where}: no {k}' for k in schema.get('required', []) if k not in value]
        if schema.get('additionalProperties', True) is False:
            bad += [f'{where}: property {k} is not in the schema' for k in value
                    if k not in props]
        for k, v in value.items():
            if k in props:
                bad += problems(props[k], v, root, f'{where}.{k}')
    return bad
