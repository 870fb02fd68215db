from mcpbench.cli.app import main

main()
