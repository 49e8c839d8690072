#!/usr/bin/env python3
"""libpulsar's ABI against its record: what a compiled caller depends on.

usage: scripts/abi-check.py LIBRARY [--header H] [--record-file F] [--record]

Reads the ABI from include/pulsar.h and the built LIBRARY:
  abi N                         PULSAR_ABI_VERSION, and the library's soname libpulsar.so.N
  symbol NAME                   each function the library exports
  function NAME (TYPES) -> T    each function the header declares: return and parameter types
  callback NAME (TYPES) -> T    each function-pointer type
  const NAME VALUE              each enumerator
  struct NAME size S align A    each struct's size and alignment, as the C compiler lays it out
  field STRUCT.NAME offset O size S

and compares it with the record (include/pulsar.abi). A line of the record that is gone or
changed breaks callers compiled against it; a line that is new is compatible but unrecorded.
Either fails (exit 1) naming the lines; --record writes the current ABI as the record instead.
A struct may grow at its end within one ABI version (each carries its size): its old fields
keep their lines, its size line changes, and that change alone is reported as compatible.
"""
import os, re, subprocess, sys, tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def arguments():
    args = sys.argv[1:]
    options = {"--header": os.path.join(root, "include/pulsar.h"), "--record-file": os.path.join(root, "include/pulsar.abi")}
    record, library = False, None
    i = 0
    while i < len(args):
        if args[i] in options and i + 1 < len(args):
            options[args[i]] = args[i + 1]
            i += 2
        elif args[i] == "--record":
            record, i = True, i + 1
        elif library is None and not args[i].startswith("-"):
            library, i = args[i], i + 1
        else:
            sys.exit(f"abi-check: unknown argument '{args[i]}' (usage: abi-check.py LIBRARY [--header H] [--record-file F] [--record])")
    if library is None:
        sys.exit("abi-check: usage: abi-check.py LIBRARY [--header H] [--record-file F] [--record]")
    return library, options["--header"], options["--record-file"], record


def strip_comments(text):
    return re.sub(r"/\*.*?\*/", " ", text, flags=re.S)


def parameter_types(params):
    """`const pulsar_mix *mix, int64_t frames` -> `const pulsar_mix *, int64_t`: names dropped."""
    params = params.strip()
    if params in ("", "void"):
        return "void"
    types = []
    for p in params.split(","):
        p = " ".join(p.replace("*", " * ").split())
        tokens = p.split(" ")
        if len(tokens) > 1 and re.fullmatch(r"[A-Za-z_]\w*", tokens[-1]) and tokens[-2] != "struct":
            tokens = tokens[:-1]
        types.append(pointer_spacing(" ".join(tokens)))
    return ", ".join(types)


def pointer_spacing(text):
    """`pulsar_mix * *` and `pulsar_mix**` -> `pulsar_mix **`."""
    text = " ".join(text.replace("*", " * ").split())
    return re.sub(r"\s*((?:\* ?)+)", lambda m: " " + m.group(1).replace(" ", ""), text).strip()


def header_abi(header):
    text = strip_comments(open(header, encoding="utf-8").read())
    lines = []
    version = re.search(r"#define\s+PULSAR_ABI_VERSION\s+(\d+)", text)
    if not version:
        sys.exit(f"abi-check: {header}: no #define PULSAR_ABI_VERSION")
    lines.append(f"abi {version.group(1)}")
    for name, value in re.findall(r"\b(PULSAR_[A-Z0-9_]+)\s*=\s*(-?\d+)", text):
        lines.append(f"const {name} {value}")
    for ret, name, params in re.findall(r"^\s*typedef\s+([\w\s\*]+?)\s*\(\s*\*\s*(\w+)\s*\)\s*\(([^;]*?)\)\s*;", text, flags=re.M):
        lines.append(f"callback {name} ({parameter_types(params)}) -> {pointer_spacing(ret)}")
    body = re.sub(r"typedef\s+(struct|enum)\s+\w+\s*\{.*?\}\s*\w+\s*;", " ", text, flags=re.S)
    for ret, name, params in re.findall(r"^\s*((?:const\s+)?[\w]+(?:\s*\*)*)\s*\b(pulsar_\w+)\s*\(([^;]*?)\)\s*;", body, flags=re.M):
        lines.append(f"function {name} ({parameter_types(params)}) -> {pointer_spacing(ret)}")
    structs = []
    for name, members, closing in re.findall(r"typedef\s+struct\s+(\w+)\s*\{(.*?)\}\s*(\w+)\s*;", text, flags=re.S):
        fields = []
        for member in (m.strip() for m in members.split(";") if m.strip()):
            field = re.search(r"(\w+)\s*$", member).group(1)
            fields.append((field, pointer_spacing(member[: -len(field)])))
        structs.append((closing, fields))
    return version.group(1), lines, structs


def layout(header, structs):
    """The compiler's sizes and offsets of every struct member, from a program it builds."""
    with tempfile.TemporaryDirectory(prefix="pulsar-abi-") as work:
        source = os.path.join(work, "layout.c")
        with open(source, "w") as out:
            out.write(f'#include <stdio.h>\n#include <stddef.h>\n#include "{os.path.abspath(header)}"\nint main(void) {{\n')
            for name, fields in structs:
                out.write(f'    printf("struct {name} size %zu align %zu\\n", sizeof({name}), _Alignof({name}));\n')
                for f, type_text in fields:
                    out.write(f'    printf("field {name}.{f} offset %zu size %zu type {type_text}\\n", offsetof({name}, {f}), sizeof((({name} *)0)->{f}));\n')
            out.write("    return 0;\n}\n")
        program = os.path.join(work, "layout")
        cc = subprocess.run(["cc", "-std=c11", "-Wall", "-Werror", source, "-o", program], capture_output=True, text=True)
        if cc.returncode != 0:
            sys.exit(f"abi-check: {header}: the struct layout program does not compile: {cc.stderr.strip().splitlines()[0] if cc.stderr.strip() else cc.returncode}")
        return subprocess.run([program], capture_output=True, text=True, check=True).stdout.splitlines()


def library_abi(library, version):
    nm = subprocess.run(["nm", "-D", "--defined-only", library], capture_output=True, text=True)
    if nm.returncode != 0:
        sys.exit(f"abi-check: {library}: nm cannot read it: {nm.stderr.strip()}")
    symbols = sorted(f[2] for f in (l.split() for l in nm.stdout.splitlines()) if len(f) == 3 and f[1].isupper())
    soname = re.search(r"Library soname: \[([^\]]+)\]", subprocess.run(["readelf", "-d", library], capture_output=True, text=True).stdout)
    problems = []
    if not soname or soname.group(1) != f"libpulsar.so.{version}":
        problems.append(f"the soname is {soname.group(1) if soname else 'missing'}, not libpulsar.so.{version} (PULSAR_ABI_VERSION {version})")
    return [f"symbol {s}" for s in symbols], problems


def key(line):
    """What a line is about: its kind and name (the rest is its value)."""
    parts = line.split(" ")
    return " ".join(parts[:2])


def main():
    library, header, record_file, record = arguments()
    version, lines, structs = header_abi(header)
    symbols, problems = library_abi(library, version)
    current = lines + layout(header, structs) + symbols
    declared = {l.split(" ")[1] for l in current if l.startswith("function ")}
    exported = {l.split(" ")[1] for l in symbols}
    for name in sorted(declared - exported):
        problems.append(f"{name} is declared in the header but the library does not export it")
    for name in sorted(exported - declared):
        problems.append(f"{name} is exported but the header does not declare it")
    if problems:
        for p in problems:
            print(f"abi-check: {p}", file=sys.stderr)
        return 1
    if record:
        with open(record_file, "w") as out:
            out.write("# libpulsar's ABI, written by scripts/abi-check.py --record; checked by `make test`.\n")
            out.write("\n".join(current) + "\n")
        print(f"abi-check: recorded {len(current)} lines in {record_file}")
        return 0
    try:
        recorded = [l for l in open(record_file).read().splitlines() if l and not l.startswith("#")]
    except OSError as e:
        print(f"abi-check: {record_file}: {e.strerror}; record the ABI with scripts/abi-check.py LIBRARY --record", file=sys.stderr)
        return 1
    if recorded and recorded[0] != current[0]:
        print(f"abi-check: {header} states '{current[0]}', the record '{recorded[0]}': a new ABI version needs a new record "
              f"(scripts/abi-check.py LIBRARY --record) and the soname libpulsar.so.{version}", file=sys.stderr)
        return 1
    now = {key(l): l for l in current}
    before = {key(l): l for l in recorded}
    grown = set()
    for k, line in before.items():
        if k.startswith("struct ") and k in now and now[k] != line:
            old_fields = [l for l in recorded if l.startswith("field " + k.split(" ")[1] + ".")]
            if all(l in current for l in old_fields) and int(now[k].split()[3]) > int(line.split()[3]):
                grown.add(k)
    breaking = [f"{line}  →  {now[k] if k in now else 'gone'}" for k, line in before.items() if now.get(k) != line and k not in grown]
    compatible = [f"{before[k]}  →  {now[k]} (grown at its end)" for k in sorted(grown)]
    compatible += [line for k, line in now.items() if k not in before]
    for line in breaking:
        print(f"abi-check: breaks callers: {line}", file=sys.stderr)
    for line in compatible:
        print(f"abi-check: compatible, not recorded: {line}", file=sys.stderr)
    if breaking or compatible:
        print(f"abi-check: {len(breaking)} breaking, {len(compatible)} compatible change(s) against {record_file}; "
              "a compatible change is recorded with scripts/abi-check.py LIBRARY --record, a breaking one needs a new "
              "PULSAR_ABI_VERSION and soname", file=sys.stderr)
        return 1
    print(f"abi-check: {library} and {os.path.relpath(header, root)} match the record ({len(current)} lines: "
          f"{len(symbols)} functions, {len(structs)} structs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
