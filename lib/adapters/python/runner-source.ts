/**
 * The Python that runs a model's code inside the worker (python-worker.ts), as text for
 * pyodide.runPython; it evaluates to a function of the code that returns what the worker reports:
 * the error (None when the code finished) and the names of the files it created or changed.
 *
 * The modules that lead back to JavaScript (`js`, `pyodide_js`, Pyodide's own and its core) are
 * taken out of sys.modules and refused on import, before the code runs: one more layer behind the
 * worker's own (python-worker.ts), not the only one, since Python cannot really wall off itself.
 */
export const RUNNER_SOURCE = String.raw`
def _make_runner():
    import hashlib, os, sys, traceback

    blocked_roots = {'js', 'pyodide_js', 'pyodide', '_pyodide', '_pyodide_core', 'micropip', 'pyodide_http'}

    class _Refused:
        def find_spec(self, name, path=None, target=None):
            if name.split('.')[0] in blocked_roots:
                raise ImportError(f"the module {name!r} is not available in this sandbox")
            return None

    def digests(folder):
        found = {}
        for name in os.listdir(folder):
            path = os.path.join(folder, name)
            if os.path.isfile(path):
                with open(path, 'rb') as file:
                    found[name] = hashlib.sha256(file.read()).digest()
        return found

    def run(code):
        home = os.getcwd()
        before = digests(home)
        for name in list(sys.modules):
            if name.split('.')[0] in blocked_roots:
                del sys.modules[name]
        sys.meta_path.insert(0, _Refused())
        namespace = {'__name__': '__main__', '__builtins__': __builtins__}
        error = None
        try:
            exec(compile(code, '<code>', 'exec'), namespace)
        except SystemExit as exit:
            if exit.code not in (None, 0):
                error = f'SystemExit: {exit.code}'
        except BaseException as exception:
            # What the code allocated goes first: after a MemoryError the traceback needs room.
            namespace.clear()
            try:
                # Without this runner's own frame: the model sees its code's lines only.
                error = ''.join(traceback.format_exception(type(exception), exception, exception.__traceback__.tb_next if exception.__traceback__ else None))
            except BaseException:
                error = f'{type(exception).__name__}: {exception}'
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
        after = digests(home)
        changed = [name for name, digest in after.items() if before.get(name) != digest]
        return error, changed

    return run

_make_runner()
`;
