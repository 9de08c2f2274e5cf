"""What the SDK peers (bench/peer_training_sdk.py, bench/peer_trainer_sdk.py) share: their
command line and how a run's end is told. Nothing of an SDK is imported here.

    PEER KUBECONFIG NAMESPACE NAME WORKERS [IMAGE] [SIM_ENV=VALUE...]

Exit codes: 0 the job succeeded, 1 the SDK reported the Failed verdict, 2 the SDK's timeout,
3 another error of the SDK (not a verdict: what a user's script gets too).
"""
import sys


def args(argv):
    """(kubeconfig, namespace, name, workers, image, env) from the command line."""
    kubeconfig, ns, name, workers = argv[1], argv[2], argv[3], int(argv[4])
    rest = argv[5:]
    image = "ghcr.io/x/jax:1"
    if rest and "=" not in rest[0]:
        image, rest = rest[0], rest[1:]
    return kubeconfig, ns, name, workers, image, dict(a.split("=", 1) for a in rest)


def raised(name, e, verdict):
    """The exit code of a RuntimeError `e` of the SDK; `verdict`: it is the Failed verdict."""
    sys.stdout.flush()
    cause = f"{type(e.__cause__).__name__}: {str(e.__cause__)[:200]}" if e.__cause__ else ""
    print(f"{name}: {'Failed' if verdict else 'error'} ({str(e)[:200]}) {cause}", file=sys.stderr)
    return 1 if verdict else 3


def timed_out(name, e):
    print(f"{name}: timeout ({e})", file=sys.stderr)
    return 2
