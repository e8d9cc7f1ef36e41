"""`python -m bitpack --version`: the package's version; `--formats`: the
formats it converts."""

import argparse

from . import FORMATS, __version__


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m bitpack", description=__doc__)
    p.add_argument("--version", action="store_true", help="print the version")
    p.add_argument("--formats", action="store_true", help="list the formats")
    args = p.parse_args(argv)
    if args.formats:
        print("\n".join(FORMATS))
    else:
        print(f"bitpack {__version__}")


if __name__ == "__main__":
    main()
