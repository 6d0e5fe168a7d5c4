"""The built PageFunction, run as Lambda would run it (tests/test_api_artifact.py builds it with the rest):
its own folder alone on the path (no layer), in a clean interpreter that writes no bytecode."""

import json
import subprocess

# argv: the function's folder. Prints one JSON object: what the page and one of its assets answered,
# and which modules came from the folder without shipped bytecode.
DRIVER = r'''
import importlib.util, json, os, sys
root = sys.argv[1]
sys.path.insert(0, root)
import app

def get(path, resource, params=None):
    event = {"httpMethod": "GET", "path": path, "resource": resource, "pathParameters": params, "headers": {},
             "requestContext": {"path": "/Prod" + path, "stage": "Prod"}}
    return app.lambda_handler(event, None)

page = get("/", "/")
asset = "%s/app/main.js" % app.VERSION
script = get("/assets/" + asset, "/assets/{path+}", {"path": asset})
uncompiled = sorted(name for name, m in list(sys.modules.items())
                    if (getattr(m, "__file__", None) or "").startswith(root)
                    and not os.path.exists(importlib.util.cache_from_source(m.__file__)))
outside = sorted(name for name, m in list(sys.modules.items())
                 if "site-packages" in (getattr(m, "__file__", None) or ""))
print(json.dumps({"page": page, "script": script, "version": app.VERSION, "uncompiled": uncompiled,
                  "site_packages": outside}))
'''


def run(python, function_dir):
    proc = subprocess.run([python, "-I", "-B", "-c", DRIVER, str(function_dir)], capture_output=True, text=True,
                          timeout=120)
    if proc.returncode != 0:
        raise RuntimeError(f"the built PageFunction failed:\n{proc.stderr[-4000:]}")
    return json.loads(proc.stdout)
