"""Your own documents below the store: reading a folder, parsing each format into text with its heading sections,
and cutting that text into passages whose spans are exact slices of it (stored by playground.documents)."""
