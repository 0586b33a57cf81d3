"""Parse Julia sources with tree-sitter-julia and report every syntax error.

Julia itself cannot be installed here; this catches what a parser can: unbalanced blocks,
stray tokens, malformed calls. First it checks that it can see an error at all (a broken
snippet must be reported), then parses every .jl file under the given directories and
prints "parsed N files, E syntax errors"; each error as "path:line:column: text".

    python3 parse_julia.py julia/
"""
import pathlib
import sys

import tree_sitter
import tree_sitter_julia

PARSER = tree_sitter.Parser(tree_sitter.Language(tree_sitter_julia.language()))


def errors(source: bytes):
    """(line, column, text) of every ERROR or MISSING node."""
    found = []
    pending = [PARSER.parse(source).root_node]
    while pending:
        node = pending.pop()
        if node.is_error or node.is_missing:
            row, column = node.start_point
            text = source[node.start_byte:node.end_byte].decode(errors="replace")
            found.append((row + 1, column + 1, text.splitlines()[0] if text else "(missing)"))
        elif node.has_error:
            pending.extend(node.children)
    return found


def main(roots):
    broken = b"function f(x)\n    g(x,\nend\n"
    if not errors(broken):
        sys.exit("parse_julia: the parser found no error in a broken snippet")
    files = sorted(p for root in roots for p in pathlib.Path(root).rglob("*.jl"))
    if not files:
        sys.exit(f"parse_julia: no .jl files under {roots}")
    count = 0
    for path in files:
        for line, column, text in errors(path.read_bytes()):
            print(f"{path}:{line}:{column}: syntax error at {text!r}")
            count += 1
    print(f"parsed {len(files)} files, {count} syntax errors")
    return 1 if count else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
