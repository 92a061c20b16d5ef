"""A prompt template and its file format: a `{# key: value #}` header, then `### system` and `### user` parts.

    {#
    name: rag-short-answer
    description: Answer from retrieved passages in a few words.
    technique: retrieve-then-read
    variables: question, passages
    answer_format: short
    #}
    ### system
    You answer questions from the passages you are given.
    ### user
    {% for p in passages %}
    [{{ loop.index }}] {{ p.title }}: {{ p.text }}
    {% endfor %}
    Question: {{ question }}

The whole file is valid Jinja2 (the header is a comment), so editors highlight it as such. A file without
`### ...` lines is all user part; a file without a header takes its name from the file name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from playground.prompts.errors import TemplateError
from playground.prompts.variables import PARTS, required_variables

ANSWER_FORMATS = ("short", "letter", "json", "cot")
HEADER_KEYS = ("name", "description", "technique", "variables", "answer_format")
MAX_NAME_CHARS = 200  # a template's file is NAME.jinja, and file systems refuse names past 255 bytes
MAX_FILE_BYTES = 1024**2  # a template file (a larger one is refused before it is read whole)
SUFFIX = ".jinja"  # a template file's name is NAME.jinja
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_MARKER = re.compile(r"^###[ \t]*(system|user)[ \t]*$", re.I)
_HEADER_OPEN = re.compile(r"^\{#-?[ \t]*$")
_HEADER_CLOSE = re.compile(r"^-?#\}[ \t]*$")
_KEY_VALUE = re.compile(r"^([A-Za-z_][\w-]*)[ \t]*:[ \t]*(.*?)[ \t]*$")


def check_name(name: str) -> str:
    if len(name or "") > MAX_NAME_CHARS:
        raise TemplateError(
            f"template name of {len(name):,} characters is too long (at most {MAX_NAME_CHARS})", part="header"
        )
    if not name or not NAME_PATTERN.match(name):
        raise TemplateError(
            f"template name {name!r} must be letters, digits, '.', '_' or '-' (starting with a letter or digit)",
            part="header",
        )
    return name


@dataclass
class Template:
    """A named prompt: a system part and a user part (Jinja2 sources) with its metadata.

    `content` is the canonical file text; prompt versions are addressed by its hash.
    """

    name: str
    system: str
    user: str
    description: str = ""
    technique: str = ""
    answer_format: str = "short"
    variables: list[str] = field(default_factory=list)
    path: Optional[str] = None
    first_lines: Optional[dict[str, int]] = field(default=None, compare=False, repr=False)  # part -> file line

    def __post_init__(self) -> None:
        check_name(self.name)
        self.system = _normalise_part(self.system)
        self.user = _normalise_part(self.user)
        if self.answer_format not in ANSWER_FORMATS:
            raise TemplateError(
                f"answer_format {self.answer_format!r} is not one of {', '.join(ANSWER_FORMATS)}",
                part="header",
                template=self.name,
            )
        for part in PARTS:
            for number, line in enumerate(getattr(self, part).split("\n"), start=1):
                if _MARKER.match(line):
                    raise TemplateError(
                        f"a {part} part cannot contain the separator line {line.strip()!r}",
                        part=part,
                        line=number,
                        column=1,
                        template=self.name,
                    )

    @property
    def content(self) -> str:
        """The canonical text: header with every key, then both parts; `from_text(content)` gives this template back."""

        def one_line(value: str) -> str:
            return " ".join(value.split())

        header = [
            f"name: {self.name}",
            f"description: {one_line(self.description)}",
            f"technique: {one_line(self.technique)}",
            f"variables: {', '.join(self.variables)}",
            f"answer_format: {self.answer_format}",
        ]
        lines = ["{#", *(line.rstrip() for line in header), "#}", "### system"]
        if self.system:
            lines.append(self.system)
        lines.append("### user")
        if self.user:
            lines.append(self.user)
        return "\n".join(lines) + "\n"

    def part_first_line(self, part: str) -> int:
        """The file line a part starts on: from the parsed file, else from the canonical layout."""
        if self.first_lines and part in self.first_lines:
            return self.first_lines[part]
        system_start = len(HEADER_KEYS) + 4
        if part == "system":
            return system_start
        return system_start + (self.system.count("\n") + 1 if self.system else 0) + 1

    def with_changes(self, **changes) -> "Template":
        """A copy with some fields replaced (as an edit in the app would make)."""
        values = {
            key: getattr(self, key)
            for key in ("name", "system", "user", "description", "technique", "answer_format", "variables", "path")
        }
        values.update(changes)
        if "system" in changes or "user" in changes:
            values["first_lines"] = None
        else:
            values["first_lines"] = self.first_lines
        return Template(**values)

    @classmethod
    def from_text(cls, text: str, name: Optional[str] = None, path: Optional[str] = None) -> "Template":
        """Parse a template file's text; `name` overrides the header's name, else the file name is used."""
        text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
        lines = text.split("\n")
        header, body_start = _parse_header(lines, name or (Path(path).stem if path else None))
        parts, first_lines = _split_parts(lines, body_start, header.get("name"))
        resolved_name = name or header.get("name") or (Path(path).stem if path else None)
        if not resolved_name:
            raise TemplateError(
                "the template has no name: add 'name: ...' to its header", part="header", line=1, column=1
            )
        answer_format = header.get("answer_format") or "short"
        if answer_format not in ANSWER_FORMATS:
            raise TemplateError(
                f"answer_format {answer_format!r} is not one of {', '.join(ANSWER_FORMATS)}",
                part="header",
                line=header.get("_line_answer_format"),
                column=1,
                template=resolved_name,
            )
        variables = header.get("variables")
        template = cls(
            name=check_name(resolved_name),
            system=parts["system"],
            user=parts["user"],
            description=header.get("description", ""),
            technique=header.get("technique", ""),
            answer_format=answer_format,
            variables=list(variables) if variables is not None else [],
            path=str(path) if path else None,
            first_lines=first_lines,
        )
        if variables is None:
            try:
                template.variables = required_variables(template)
            except TemplateError:
                pass  # the error surfaces when the template is rendered or checked
        return template

    @classmethod
    def from_file(cls, path: str | Path, folder: Optional[str | Path] = None) -> "Template":
        """The template in file `path` (a regular NAME.jinja file, at most MAX_FILE_BYTES); with `folder`, only when
        the file, its links followed, is inside that folder (a link in templates/ to /etc/shadow is refused, not read)."""
        from playground.input_files import InputFileError, inside, read_text, shown_path

        path = Path(path)
        if path.suffix != SUFFIX:  # a file named as a template by mistake (/etc/shadow) is not read, sent or stored
            raise TemplateError(f"template file {shown_path(path)}: a template file's name ends in {SUFFIX}")
        if folder is not None and not inside(folder, path):
            raise TemplateError(f"template file {shown_path(path)} is a link to outside {shown_path(folder)}: not read")
        try:
            text = read_text(path, MAX_FILE_BYTES)
        except InputFileError as error:
            raise TemplateError(f"cannot read template file {error}") from None
        try:
            return cls.from_text(text, path=str(path))
        except TemplateError as error:
            if error.template is None:
                error.template = str(path)
                error.args = (error._message(),)
            raise


def _normalise_part(text: str) -> str:
    """Unix newlines, no trailing spaces, no blank lines around: edits that change only these are the same version."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join(line.rstrip() for line in lines).strip("\n")


def _parse_header(lines: list[str], template: Optional[str]) -> tuple[dict, int]:
    """The `{# key: value #}` block at the top (blank lines before it allowed); returns (fields, body's first index)."""
    start = 0
    while start < len(lines) and not lines[start].strip():
        start += 1
    if start >= len(lines) or not _HEADER_OPEN.match(lines[start]):
        return {}, 0
    fields: dict = {}
    for index in range(start + 1, len(lines)):
        line = lines[index]
        if _HEADER_CLOSE.match(line):
            return fields, index + 1
        if _MARKER.match(line):
            break
        if not line.strip():
            continue
        match = _KEY_VALUE.match(line.strip())
        column = len(line) - len(line.lstrip()) + 1
        if not match:
            raise TemplateError(
                f"expected 'key: value' in the header, got {line.strip()!r}",
                part="header",
                line=index + 1,
                column=column,
                template=template,
            )
        key, value = match.group(1).lower(), match.group(2)
        if key not in HEADER_KEYS:
            raise TemplateError(
                f"unknown header key {key!r} (known: {', '.join(HEADER_KEYS)})",
                part="header",
                line=index + 1,
                column=column,
                template=template,
            )
        if key in fields:
            raise TemplateError(
                f"header key {key!r} is given twice", part="header", line=index + 1, column=column, template=template
            )
        if key == "variables":
            names = [name.strip() for name in value.split(",") if name.strip()]
            for name in names:
                if not re.match(r"^[A-Za-z_]\w*$", name):
                    raise TemplateError(
                        f"variable name {name!r} in the header is not a valid name",
                        part="header",
                        line=index + 1,
                        column=column,
                        template=template,
                    )
            fields[key] = names
        else:
            fields[key] = value
        fields[f"_line_{key}"] = index + 1
    raise TemplateError(
        "the header opened with '{#' is never closed with '#}'",
        part="header",
        line=start + 1,
        column=1,
        template=template,
    )


def _split_parts(lines: list[str], body_start: int, template: Optional[str]) -> tuple[dict[str, str], dict[str, int]]:
    """Cut the body at `### system` / `### user`; strip blank lines around each part, remembering where it starts."""
    markers: list[tuple[str, int]] = []
    for index in range(body_start, len(lines)):
        match = _MARKER.match(lines[index])
        if match:
            part = match.group(1).lower()
            if any(part == seen for seen, _ in markers):
                raise TemplateError(
                    f"'### {part}' appears twice",
                    part=part,
                    line=None,
                    column=1,
                    template=template,
                    file_line=index + 1,
                )
            markers.append((part, index))
    if not markers:
        spans = {"system": (body_start, body_start), "user": (body_start, len(lines))}
    else:
        if [part for part, _ in markers] == ["user", "system"]:
            raise TemplateError(
                "'### system' must come before '### user'",
                part="system",
                column=1,
                template=template,
                file_line=markers[1][1] + 1,
            )
        first_marker = markers[0][1]
        stray = next((i for i in range(body_start, first_marker) if lines[i].strip()), None)
        if stray is not None:
            raise TemplateError(
                f"text before the first '### {markers[0][0]}' line belongs to no part",
                part="header",
                line=stray + 1,
                column=1,
                template=template,
            )
        spans = {"system": (first_marker, first_marker), "user": (first_marker, first_marker)}
        for number, (part, index) in enumerate(markers):
            end = markers[number + 1][1] if number + 1 < len(markers) else len(lines)
            spans[part] = (index + 1, end)
    parts: dict[str, str] = {}
    first_lines: dict[str, int] = {}
    for part, (begin, end) in spans.items():
        while begin < end and not lines[begin].strip():
            begin += 1
        while end > begin and not lines[end - 1].strip():
            end -= 1
        parts[part] = "\n".join(line.rstrip() for line in lines[begin:end])
        first_lines[part] = begin + 1
    return parts, first_lines
