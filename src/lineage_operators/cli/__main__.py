import sys

from lineage_operators.cli.main import main

sys.exit(main())
