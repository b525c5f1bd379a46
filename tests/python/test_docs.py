"""Runs the Python examples of docs/python.md in order, in one namespace, as a reader would paste
them. A block whose first line is `# needs: MODULE` runs only where MODULE imports and a CUDA
device exists; the others must run everywhere. Usage: test_docs.py PAGE."""
import importlib
import re
import sys
import unittest

PAGE = sys.argv.pop(1) if len(sys.argv) > 1 else "docs/python.md"


def blocks(text):
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def available(module):
    try:
        importlib.import_module(module)
    except Exception:
        return False
    import rfstudio

    return rfstudio.cuda_available()


class PythonPage(unittest.TestCase):
    def test_every_example_runs(self):
        with open(PAGE, encoding="utf-8") as f:
            examples = blocks(f.read())
        self.assertGreaterEqual(len(examples), 5, "the page lost its examples")
        namespace = {}
        ran = 0
        for i, code in enumerate(examples):
            need = re.match(r"# needs: (\w+)", code)
            if need and not available(need.group(1)):
                print(f"example {i + 1}: skipped, needs {need.group(1)} and a CUDA device")
                continue
            with self.subTest(example=i + 1, first_line=code.splitlines()[0]):
                exec(compile(code, f"{PAGE} example {i + 1}", "exec"), namespace)
                ran += 1
        print(f"{ran} of {len(examples)} examples ran")


if __name__ == "__main__":
    unittest.main()
