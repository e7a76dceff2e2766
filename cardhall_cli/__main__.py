import sys

from cardhall_cli import main

sys.exit(main())
