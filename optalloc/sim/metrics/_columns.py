"""Fields of many job records read as columns, for the summaries.

Reading one field of a million records object by object costs more than
the simulation that made them; the simulator hands its summaries the
columns it gathered as the jobs ended instead (:class:`RecordColumns`),
in record order, with the values the records hold.
"""

from __future__ import annotations

import operator

__all__ = ["RecordColumns", "columns_of"]


class RecordColumns:
    """Fields of job records as sequences, in record order.

    Parameters
    ----------
    data : dict
        Field name -> sequence of values (one per record).
    records : sequence, optional
        The records, for the fields ``data`` lacks (read when asked for).
    """

    def __init__(self, data: dict, records=()):
        self.data = dict(data)
        self.records = records
        self.n = len(next(iter(self.data.values()))) if self.data else len(records)

    def __len__(self) -> int:
        return self.n

    def column(self, name: str):
        """The values of one field (None where a record has no such field)."""
        if name not in self.data:
            try:
                self.data[name] = list(map(operator.attrgetter(name), self.records))
            except AttributeError:
                self.data[name] = [getattr(r, name, None) for r in self.records]
        return self.data[name]


def columns_of(records) -> RecordColumns:
    """Records (any iterable) as :class:`RecordColumns`, read field by field when asked for."""
    if isinstance(records, RecordColumns):
        return records
    return RecordColumns({}, list(records))
