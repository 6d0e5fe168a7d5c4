"""What the local runner needs from template.yaml: functions, their settings, their API routes and
SQS events, and the queues, tables and buckets they use.

A small reading of the SAM template, not a CloudFormation engine: `!Ref` to a parameter gives the
parameter's default; `!Ref` / `!GetAtt` to a resource give what the caller says that resource is
(`resources`: the local stand-ins of kibitz/local/aws.py), or nothing; other intrinsic
functions are left unresolved (and so are not used).
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
class SqsEvent:
    """An SQS event source of a function (SAM `Type: SQS`)."""

    name: str
    queue: str  # the queue's logical id
    batch_size: int
    max_concurrency: int | None  # ScalingConfig.MaximumConcurrency
    report_batch_item_failures: bool  # FunctionResponseTypes: [ReportBatchItemFailures]


@dataclasses.dataclass(frozen=True)
class Function:
    name: str  # logical id, e.g. AnalyzeFunction
    code_dir: pathlib.Path
    handler: str  # module.function
    timeout_s: int
    memory_mb: int
    environment: dict
    routes: tuple
    sqs_events: tuple = ()


@dataclasses.dataclass(frozen=True)
class Queue:
    name: str  # logical id
    visibility_timeout_s: int
    retention_s: int
    dead_letter_queue: str | None  # logical id of the redrive target
    max_receive_count: int | None


@dataclasses.dataclass(frozen=True)
class Table:
    name: str  # logical id
    keys: tuple  # ((attribute, "S"|"N"|"B", "HASH"|"RANGE"), ...)
    ttl_attribute: str | None


def document(path):
    doc = yaml.load(pathlib.Path(path).read_text(), Loader=_Loader)
    params = {name: p.get("Default") for name, p in (doc.get("Parameters") or {}).items()}
    return doc, params


def api_setting(name, path=TEMPLATE):
    """A property of the template's REST API (the first AWS::Serverless::Api or AWS::ApiGateway::RestApi),
    `!Ref`s to parameters resolved: e.g. MinimumCompressionSize. None when it is not set."""
    doc, params = document(path)
    for res in (doc.get("Resources") or {}).values():
        if res.get("Type") in ("AWS::Serverless::Api", "AWS::ApiGateway::RestApi"):
            return _resolve((res.get("Properties") or {}).get(name), params)
    return None


def variable_names(function, path=TEMPLATE):
    """The names of the environment variables a function declares itself (not the Globals'), whatever
    their values: those that name a resource have none without `resources` (load())."""
    doc, _ = document(path)
    props = (doc.get("Resources") or {}).get(function, {}).get("Properties") or {}
    return list((props.get("Environment") or {}).get("Variables") or {})


def load(path=TEMPLATE, resources=None):
    """{logical id: Function} for every AWS::Serverless::Function in the template.

    resources: {logical id: {"Ref": ..., "Arn": ..., other attributes}} to resolve `!Ref` and `!GetAtt`
    to the template's resources (environment variables naming a table or a queue); without it such
    variables are left out.
    """
    path = pathlib.Path(path)
    doc, params = document(path)
    resources = resources or {}
    glob = (doc.get("Globals") or {}).get("Function") or {}
    functions = {}
    for name, res in (doc.get("Resources") or {}).items():
        if res.get("Type") != "AWS::Serverless::Function":
            continue
        props = {**glob, **(res.get("Properties") or {})}
        env = {}
        for source in (glob, res.get("Properties") or {}):
            for key, value in ((source.get("Environment") or {}).get("Variables") or {}).items():
                value = _resolve(value, params, resources)
                if value is not None:
                    env[key] = str(value)
        events = props.get("Events") or {}
        routes = tuple(
            Route(str(ev["Properties"]["Method"]).upper(), ev["Properties"]["Path"])
            for ev in events.values()
            if ev.get("Type") == "Api"
        )
        sqs_events = []
        for event_name, ev in events.items():
            if ev.get("Type") != "SQS":
                continue
            p = ev.get("Properties") or {}
            queue = p["Queue"]
            queue_id = queue.value.split(".")[0] if isinstance(queue.value, str) else queue.value[0]
            concurrency = _resolve((p.get("ScalingConfig") or {}).get("MaximumConcurrency"), params, resources)
            sqs_events.append(SqsEvent(
                name=event_name, queue=queue_id, batch_size=int(_resolve(p.get("BatchSize", 10), params, resources)),
                max_concurrency=int(concurrency) if concurrency is not None else None,
                report_batch_item_failures="ReportBatchItemFailures" in (p.get("FunctionResponseTypes") or [])))
        functions[name] = Function(
            name=name,
            code_dir=(path.parent / props["CodeUri"]).resolve(),
            handler=props["Handler"],
            timeout_s=int(props.get("Timeout", 3)),
            memory_mb=int(_resolve(props.get("MemorySize", 128), params, resources)),
            environment=env,
            routes=routes,
            sqs_events=tuple(sqs_events),
        )
    return functions


def queues(path=TEMPLATE):
    """{logical id: Queue} for every AWS::SQS::Queue."""
    doc, params = document(path)
    out = {}
    for name, res in (doc.get("Resources") or {}).items():
        if res.get("Type") != "AWS::SQS::Queue":
            continue
        props = res.get("Properties") or {}
        redrive = props.get("RedrivePolicy") or {}
        target = redrive.get("deadLetterTargetArn")
        dlq = (target.value.split(".")[0] if isinstance(target.value, str) else target.value[0]) \
            if isinstance(target, _Tag) and target.tag == "GetAtt" else None
        count = _resolve(redrive.get("maxReceiveCount"), params, {})
        out[name] = Queue(name=name, visibility_timeout_s=int(_resolve(props.get("VisibilityTimeout", 30), params, {})),
                          retention_s=int(_resolve(props.get("MessageRetentionPeriod", 345600), params, {})),
                          dead_letter_queue=dlq, max_receive_count=int(count) if count is not None else None)
    return out


def tables(path=TEMPLATE):
    """{logical id: Table} for every AWS::DynamoDB::Table."""
    doc, _ = document(path)
    out = {}
    for name, res in (doc.get("Resources") or {}).items():
        if res.get("Type") != "AWS::DynamoDB::Table":
            continue
        props = res.get("Properties") or {}
        types = {a["AttributeName"]: a["AttributeType"] for a in props.get("AttributeDefinitions") or []}
        keys = tuple((k["AttributeName"], types[k["AttributeName"]], k["KeyType"])
                     for k in props.get("KeySchema") or [])
        ttl = props.get("TimeToLiveSpecification") or {}
        out[name] = Table(name=name, keys=keys, ttl_attribute=ttl.get("AttributeName") if ttl.get("Enabled") else None)
    return out


def buckets(path=TEMPLATE):
    """The logical ids of every AWS::S3::Bucket."""
    doc, _ = document(path)
    return [name for name, res in (doc.get("Resources") or {}).items() if res.get("Type") == "AWS::S3::Bucket"]


def _resolve(value, params, resources=None):
    if isinstance(value, _Tag):
        if value.tag == "Ref":
            if value.value in params:
                return params[value.value]
            return (resources or {}).get(value.value, {}).get("Ref")
        if value.tag == "GetAtt":
            logical, _, attribute = value.value.partition(".") if isinstance(value.value, str) else \
                (value.value[0], ".", value.value[1])
            return (resources or {}).get(logical, {}).get(attribute)
        return None
    return value
