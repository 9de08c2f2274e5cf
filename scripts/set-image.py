#!/usr/bin/env python3
"""set-image.py - write one image reference of jaxjob into every file that runs it.

    scripts/set-image.py IMAGE                 rewrite the files (make set-image IMAGE=...)
    scripts/set-image.py --check IMAGE         exit 1 naming each file that says otherwise
    scripts/set-image.py --root DIR IMAGE      work on a copy of the tree rooted at DIR
    scripts/set-image.py --validate[-build] IMAGE  only check IMAGE (the Makefile, before
                                               anything is written; -build: a tag, no digest)

The image is `make image`'s IMAGE (default jaxjob:<lib/version.h>, Makefile). A
reference is an `image: ...`, `image="..."` or kustomize `newName`-free tag whose
repository's last path part is `jaxjob` (jaxjob:0.1.0, registry.example.com/ml/jaxjob:1.2.3,
...@sha256:...); other images (busybox, the training images) are left alone. After
rewriting, deploy/generate.py regenerates deploy/ (the Argo CD sidecar's copy).
"""
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILES = [
    "component/component.yaml",                 # the KFP component
    "examples/argo/workflowtemplate.yaml",      # the Argo WorkflowTemplate
    "examples/kfp/container_component.py",      # the @dsl.container_component example
    "argocd-plugin/repo-server-sidecar.yaml",   # the Argo CD sidecar (deploy/ copies it)
    "component/README.md",                      # the template to copy
]
# `image: REF` (YAML) or `image="REF"` (Python), REF naming a repository .../jaxjob
REF = re.compile(r'(?P<pre>\bimage(?::[ \t]*|="))(?P<ref>(?:[A-Za-z0-9.-]+(?::[0-9]+)?/)?'
                 r'(?:[a-z0-9._-]+/)*jaxjob(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?'
                 r'(?:@sha256:[0-9a-f]{64})?)(?=["\s]|$)', re.M)
VALID = re.compile(r'(?:[A-Za-z0-9.-]+(?::[0-9]+)?/)?(?:[a-z0-9._-]+/)*[a-z0-9._-]+'
                   r'(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(?:@sha256:[0-9a-f]{64})?')


def die(msg):
    print("error: " + msg, file=sys.stderr)
    sys.exit(1)


RULE = ("[REGISTRY[:PORT]/][PATH/]jaxjob[:TAG]: a lower-case path whose last part is jaxjob, "
        "a tag of at most 128 letters, digits, '_', '.', '-' (e.g. registry.example.com/ml/jaxjob:1.2.3)")


def validate(image, build):
    """One line naming the rule IMAGE breaks, or None."""
    if image == "":
        return "IMAGE is empty; give an image reference " + RULE
    if not VALID.fullmatch(image) or not re.search(r"(^|/)jaxjob([:@]|$)", image):
        return f"IMAGE \"{image}\" is not an image reference of jaxjob; write " + RULE
    if build and "@" in image:
        return (f"IMAGE \"{image}\" names a digest; a build makes a new one: give a tag, "
                "[REGISTRY[:PORT]/][PATH/]jaxjob:TAG")
    return None


def main(argv):
    for flag in ("--validate", "--validate-build"):
        if flag in argv:
            rest = [a for a in argv if a != flag]
            if len(rest) != 1:
                die("usage: scripts/set-image.py %s IMAGE" % flag)
            bad = validate(rest[0], flag == "--validate-build")
            if bad:
                die(bad)
            return
    check = "--check" in argv
    root = TOP
    if "--root" in argv:
        root = argv[argv.index("--root") + 1]
    words = [a for i, a in enumerate(argv) if not a.startswith("--")
             and (i == 0 or argv[i - 1] != "--root")]
    if len(words) != 1:
        die("usage: scripts/set-image.py [--check] [--root DIR] IMAGE")
    image = words[0]
    bad = validate(image, False)
    if bad:
        die(bad)
    wrong = []
    for rel in FILES:
        path = os.path.join(root, rel)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        refs = [m.group("ref") for m in REF.finditer(text)]
        if not refs:
            die(f"{rel} names no jaxjob image; the list in scripts/set-image.py is stale")
        if check:
            wrong += [f"{rel}: image {r}, want {image}" for r in refs if r != image]
            continue
        new = REF.sub(lambda m: m.group("pre") + image, text)
        if new != text:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
    if check:
        for w in wrong:
            print("error: " + w + " (run make set-image IMAGE=" + image + ")", file=sys.stderr)
        sys.exit(1 if wrong else 0)
    gen = os.path.join(root, "deploy", "generate.py")
    subprocess.run([sys.executable, gen], check=True, stdout=subprocess.DEVNULL)
    print(f"image {image}: " + ", ".join(FILES) + ", deploy/")


if __name__ == "__main__":
    main(sys.argv[1:])
