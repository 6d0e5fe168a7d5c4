"""What the local runner needs from template.yaml: functions, their settings, and their API routes.

A small reading of the SAM template, not a CloudFormation engine: `!Ref` to a parameter gives the
parameter's default, other intrinsic functions are left unresolved (and so are not used).
"""

import dataclasses
import pathlib

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "template.yaml"


class _Tag:
    """An intrinsic function (!Ref, !Sub, !GetAtt, ...) kept as written."""

    def __init__(self, tag, value):
        self.tag, self.value = tag, value


class _Loader(yaml.SafeLoader):
    pass


def _construct_tag(loader, suffix, node):
    if isinstance(node, yaml.ScalarNode):
        value = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    return _Tag(suffix, value)


_Loader.add_multi_constructor("!", _construct_tag)


@dataclasses.dataclass(frozen=True)
class Route:
    method: str  # GET, POST, ..., or ANY
    path: str  # /analyze, /jobs/{id}, /{proxy+}


@dataclasses.dataclass(frozen=True)
class Function:
    name: str  # logical id, e.g. AnalyzeFunction
    code_dir: pathlib.Path
    handler: str  # module.function
    timeout_s: int
    memory_mb: int
    environment: dict
    routes: tuple


def load(path=TEMPLATE):
    """{logical id: Function} for every AWS::Serverless::Function in the template."""
    path = pathlib.Path(path)
    doc = yaml.load(path.read_text(), Loader=_Loader)
    params = {name: p.get("Default") for name, p in (doc.get("Parameters") or {}).items()}
    glob = (doc.get("Globals") or {}).get("Function") or {}
    functions = {}
    for name, res in (doc.get("Resources") or {}).items():
        if res.get("Type") != "AWS::Serverless::Function":
            continue
        props = {**glob, **(res.get("Properties") or {})}
        env = {}
        for source in (glob, res.get("Properties") or {}):
            for key, value in ((source.get("Environment") or {}).get("Variables") or {}).items():
                value = _resolve(value, params)
                if value is not None:
                    env[key] = str(value)
        routes = tuple(
            Route(str(ev["Properties"]["Method"]).upper(), ev["Properties"]["Path"])
            for ev in (props.get("Events") or {}).values()
            if ev.get("Type") == "Api"
        )
        functions[name] = Function(
            name=name,
            code_dir=(path.parent / props["CodeUri"]).resolve(),
            handler=props["Handler"],
            timeout_s=int(props.get("Timeout", 3)),
            memory_mb=int(props.get("MemorySize", 128)),
            environment=env,
            routes=routes,
        )
    return functions


def _resolve(value, params):
    if isinstance(value, _Tag):
        return params.get(value.value) if value.tag == "Ref" else None
    return value
