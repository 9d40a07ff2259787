"""`make template`: template.yaml's six browser functions, written from one definition.

The six functions that load pages in Chromium share everything but a few lines: their folder and route,
the Node layer (lz4, or zstd where the function's own code leaves no room for lz4), and what each may touch
beyond the common grants. `SHARED` below is the one definition; `FUNCTIONS` lists, per function, only
what differs, so a difference in IAM is one line here instead of one line lost in 60.

The output replaces the region of template.yaml between the two marker comments; everything else in the
template is written by hand. tests/unit/test_template_browser_functions.py fails when the committed region
differs from what this script writes, so run it after editing either. The template stays plain SAM (no
`AWS::LanguageExtensions`): `sam build`, `sam validate`, cfn-lint, the local API and the artefact tests all
read it as it is, and a function's extra Api event (the signed screenshot route) needs no conditional event,
which SAM does not have.

    python scripts/write_browser_functions.py [--check]
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TEMPLATE = REPO / "template.yaml"
BEGIN = ("  # >>> browser functions: written by scripts/write_browser_functions.py (make template);"
         " edit it there\n")
END = "  # <<< browser functions\n"



def secret_statement(condition: str, parameter: str) -> str:
    """Reading one Secrets Manager secret, named by a template parameter, when the condition holds."""
    arn = ("arn:${AWS::Partition}:secretsmanager:${AWS::Region}:${AWS::AccountId}:secret:"
           f"${{{parameter}}}*")
    return f"""\
            - !If
              - {condition}
              - Effect: Allow
                Action: secretsmanager:GetSecretValue
                Resource: !Sub "{arn}"
              - !Ref AWS::NoValue
"""


def stored_files(prefix: str) -> str:
    """Storing the function's files (a permanentUrl): their records, and their objects under one prefix."""
    return f"""\
            - Effect: Allow
              Action: dynamodb:PutItem
              Resource: !GetAtt FilesTable.Arn
            - Effect: Allow
              Action: [s3:PutObject, s3:DeleteObject]
              Resource: !Sub "${{FilesBucket.Arn}}/{prefix}/*"
"""


PROXIES_SECRET = secret_statement("HasUpstreamProxies", "UpstreamProxiesSecret")

# A monitor's check on its operation's function (docs/monitors.md#checks): the monitor read, the check's
# item written and the last completed one queried, its data too large for an item in S3; the check's job
# created with its credits reserved (the key read when that fails) and its result read back.
MONITOR_CHECKS = """\
            - Effect: Allow
              Action: [dynamodb:GetItem, dynamodb:PutItem, dynamodb:Query]
              Resource: !GetAtt MonitorsTable.Arn
            - Effect: Allow
              Action: [s3:GetObject, s3:PutObject]
              Resource: !Sub "${FilesBucket.Arn}/monitors/*"
            - Effect: Allow
              Action: dynamodb:Query
              Resource: !GetAtt JobsTable.Arn
            - Effect: Allow
              Action: dynamodb:GetItem
              Resource: !GetAtt ApiKeysTable.Arn
"""


@dataclass(frozen=True)
class BrowserFunction:
    name: str  # the logical id is f"{name}Function"; its job queue f"{name}JobsQueue"
    folder: str  # functions/<folder>/
    route: str  # POST /v1/web/<route>
    compact_node: bool = False  # Node as zstd: the function's own code fills its room for lz4
    environment: str = ""  # extra variables, YAML at the Variables' indentation
    statements: str = ""  # extra IAM statements, YAML at the Statement list's indentation
    events: str = ""  # extra events, YAML at the Events' indentation


FUNCTIONS = (
    BrowserFunction(
        "Screenshot", "screenshot", "screenshot",
        statements="""\
            - Effect: Allow
              Action: dynamodb:GetItem
              Resource: !GetAtt SigningSecretsTable.Arn # signed links (docs/cache-and-signed-links.md)
""" + stored_files("screenshots") + MONITOR_CHECKS + """\
            # A check's capture handed to MonitorsCompareFunction (docs/monitors.md#screenshot-comparison).
            - Effect: Allow
              Action: sqs:SendMessage
              Resource: !GetAtt MonitorsCompareQueue.Arn
""",
        events="""\
        SignedScreenshot:
          # A signed link carries its own proof (HMAC of the query): no authorizer.
          # docs/cache-and-signed-links.md#signed-links
          Type: Api
          Properties:
            RestApiId: !Ref WebcaptureApi
            Path: /v1/render/screenshot
            Method: get
            Auth: {Authorizer: NONE}
"""),
    BrowserFunction("Links", "links", "links"),
    BrowserFunction(
        "AiExtract", "ai_extract", "ai-extract", compact_node=True,
        environment="""\
          WEBCAPTURE_AI_MODEL: !Ref AiModel
          OPENAI_API_KEY_SECRET: !Ref OpenAiApiKeySecret
          OPENAI_BASE_URL: !Ref OpenAiBaseUrl
""",
        statements=secret_statement("HasAiSecret", "OpenAiApiKeySecret") + MONITOR_CHECKS),
    BrowserFunction("Markdown", "markdown", "markdown", statements=MONITOR_CHECKS),
    BrowserFunction("Content", "content", "content"),
    BrowserFunction(
        "Pdf", "pdf", "pdf",
        statements=stored_files("pdfs")),
)

# The block every browser function has; {placeholders} are filled from its BrowserFunction.
SHARED = """\
  {name}Function:
    Type: AWS::Serverless::Function
    Properties:
      CodeUri: functions/{folder}/
      Description: POST /v1/web/{route}
      MemorySize: 2048
      Timeout: 130
      ReservedConcurrentExecutions: !If
        - HasBrowserReservedConcurrency
        - !Ref BrowserReservedConcurrency
        - !Ref AWS::NoValue
      EphemeralStorage:
        Size: 1024
      Layers:
        - !Ref BrowserLayer # after the shared layer from Globals
        - {node_layer}
      Environment:
        Variables:
          WEBCAPTURE_UPSTREAM_PROXIES_SECRET: !Ref UpstreamProxiesSecret
{environment}\
      Policies:
        - Statement:
            - Effect: Allow
              Action: [s3:GetObject, s3:PutObject]
              Resource: !Sub "${{FilesBucket.Arn}}/cache/*" # maxAge: the answer cache
            # `profile` (docs/profiles.md): the state read and saved (SSE-KMS: ProfilesKey's policy names
            # this function's role), the metadata's version swapped on a save.
            - Effect: Allow
              Action: [s3:GetObject, s3:PutObject, s3:DeleteObject]
              Resource: !Sub "${{FilesBucket.Arn}}/profiles/*"
            - Effect: Allow
              Action: [dynamodb:GetItem, dynamodb:UpdateItem]
              Resource: !GetAtt ProfilesTable.Arn
            - Effect: Allow
              Action: dynamodb:UpdateItem
              Resource: !GetAtt ApiKeysTable.Arn
            # A job's items: claim, result, counters and refund (one transaction), large results in S3.
            - Effect: Allow
              Action: [dynamodb:GetItem, dynamodb:UpdateItem, dynamodb:PutItem]
              Resource: !GetAtt JobsTable.Arn
            - Effect: Allow
              Action: s3:PutObject
              Resource: !Sub "${{FilesBucket.Arn}}/jobs/*"
            # An item that waits for a free slot goes back to its own queue; events go to the webhooks.
            - Effect: Allow
              Action: sqs:SendMessage
              Resource: [!GetAtt {name}JobsQueue.Arn, !GetAtt WebhooksQueue.Arn]
{proxies}\
{own_statements}\
      Events:
        {name}:
          Type: Api
          Properties:
            RestApiId: !Ref WebcaptureApi
            Path: /v1/web/{route}
            Method: post
        Jobs:
          Type: SQS
          Properties:
            Queue: !GetAtt {name}JobsQueue.Arn
            BatchSize: 1 # one page per invocation: the browser does one at a time
            FunctionResponseTypes: [ReportBatchItemFailures]
            ScalingConfig:
              MaximumConcurrency: !Ref JobsWorkerConcurrency
{events}"""

PREAMBLE = """\
  # The functions that run Chromium, one block each from one definition. What they share: 2 GB, a 130 s
  # Timeout (a synchronous request keeps its deadline under API Gateway's 29 s, from requestTimeEpoch; a
  # job's item may take 120 s, docs/jobs.md#jobs, plus storing its result), the BrowserLayer and a Node
  # layer, the answer cache, a job's items from their own queue. /tmp is 1024 MB, measured
  # (docs/benchmarks.md): the cold start unpacks Chromium (220 MB) and Playwright's Node (117 MB); on top,
  # the browser's scratch folder, where Chromium keeps its shared memory (--disable-dev-shm-usage; a tall
  # full-page capture at 2x can need hundreds of MB), and room for the staging folder of an unpack cut off
  # by a timeout (220 MB). tests/artifact checks it. Each function's own grants come after the "grants of
  # its own" comment.
"""


def render_function(function: BrowserFunction) -> str:
    node_layer = ("!Ref NodeCompactLayer # Node as zstd: openai fills this function's room for lz4"
                  if function.compact_node else
                  "!Ref NodeLayer # Playwright's Node, lz4 (the fastest to inflate at a cold start)")
    own = (f"            # {function.name}Function's grants of its own:\n{function.statements}"
           if function.statements else "")
    return SHARED.format(name=function.name, folder=function.folder, route=function.route,
                         node_layer=node_layer, environment=function.environment,
                         proxies=PROXIES_SECRET, own_statements=own, events=function.events)


def render() -> str:
    """The generated region, markers included."""
    return BEGIN + PREAMBLE + "\n" + "\n".join(render_function(f) for f in FUNCTIONS) + END


def split_template(text: str) -> tuple[str, str, str]:
    """(before, region, after): the region from its BEGIN marker through its END marker."""
    start = text.index(BEGIN)
    end = text.index(END, start) + len(END)
    return text[:start], text[start:end], text[end:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when template.yaml is out of date")
    args = parser.parse_args()
    before, region, after = split_template(TEMPLATE.read_text(encoding="utf-8"))
    if args.check:
        if region != render():
            print("template.yaml's browser functions differ from scripts/write_browser_functions.py: "
                  "run `make template`", file=sys.stderr)
            return 1
        return 0
    TEMPLATE.write_text(before + render() + after, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
