"""Writing the analysis tools' output files (tables, plots, a folder's list
of files): each goes to a temporary name in its own folder and is renamed
over the final name with os.replace(). A symlink at that name is replaced,
never written through (it could point anywhere), and a reader never sees
half a file."""
import contextlib
import os
import tempfile


class OutputError(Exception):
    """An output file that cannot be written: "PATH: why"."""


# mkstemp creates files only the owner can read; a finished output file gets
# the permissions open() would have given it.
_UMASK = os.umask(0)
os.umask(_UMASK)


def output_file_problem(path):
    """Why `path` cannot be an output file, checked before any work is done
    ("PATH: why"), or None: it is a folder, or its folder is not there."""
    if os.path.isdir(path) and not os.path.islink(path):
        return f"{path}: is a folder (expected a file name)"
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        return f"{path}: cannot write (its folder {folder} is not there)"
    return None


@contextlib.contextmanager
def replacing(path, mode="w", **open_args):
    """A file object to write `path`'s new content to; on success it
    replaces `path`. Raises OutputError naming the path when the folder is
    missing or not writable, or the path is a folder."""
    if "b" not in mode:
        # Names from the command line may hold bytes that are not UTF-8
        # (surrogate escapes): written back as the bytes they were.
        open_args.setdefault("encoding", "utf-8")
        open_args.setdefault("errors", "surrogateescape")
    problem = output_file_problem(path)
    if problem:
        raise OutputError(problem)
    folder = os.path.dirname(path) or "."
    try:
        # The simulator's mark for an unfinished file (models/core/output_file.h):
        # what a killed tool leaves is then known as a run's, and cleared.
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.m2vp-partial-")
    except OSError as e:
        raise OutputError(f"{path}: cannot write ({e.strerror})") from None
    try:
        with os.fdopen(fd, mode, **open_args) as f:
            yield f
        os.chmod(tmp, 0o666 & ~_UMASK)
        os.replace(tmp, path)
    except OSError as e:
        _remove(tmp)
        raise OutputError(f"{path}: cannot write ({e.strerror or e})") from None
    except BaseException:
        _remove(tmp)
        raise


def _remove(path):
    with contextlib.suppress(OSError):
        os.unlink(path)


def output_folder(path, option="--out"):
    """Creates the folder `path` (and its parents) for output files; raises
    OutputError naming the option when it is a file or cannot be created."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise OutputError(f"{option} {path}: not a folder (it is a file; name a folder for the output)")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        raise OutputError(f"{option} {path}: cannot create the folder ({e.strerror})") from None
