"""The SQL both stores run alike (``?`` marks a parameter): rows, reads, writes, group commit.

``rows`` turns stored rows into records and a transaction's results into values, ``reads`` and
``writes`` are what every store reads and writes, ``group`` commits concurrent runs' journal
writes together. The SQLite and PostgreSQL stores each build on these with their own SQL.
"""
