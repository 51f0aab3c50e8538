"""The end of a child process's probe of an explanation: ``call(argument)`` timed alone (compiling
is not explaining), its issues kept, and the process's own memory high-water mark read."""

TIMED_FAILURE = """
started = time.perf_counter()
try:
    call(argument)
except engine.ValidationFailed as failure:
    issues, truncated = failure.issues, failure.truncated
elapsed = time.perf_counter() - started
# This process's own high-water mark (ru_maxrss would carry the forking pytest worker's).
with open("/proc/self/status") as status:
    peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) // 1024
"""
