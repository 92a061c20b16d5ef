# syntax=docker/dockerfile:1
# The playground app on the embedded demo (the same as `make demo`):
#   docker build -t playground .
#   docker run -p 8501:8501 -v playground-data:/data playground
# Dependencies are installed from requirements.lock (`make lock` regenerates it) in their own layers before the
# source is copied, so a source change rebuilds only the last layer. Set --build-arg TORCH_INDEX_URL to a CPU-only
# PyTorch index (https://download.pytorch.org/whl/cpu) to keep the image small.
FROM python:3.11-slim AS build

RUN apt-get update && apt-get install -y --no-install-recommends build-essential cmake git \
    && rm -rf /var/lib/apt/lists/*
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /src
COPY requirements.lock ./
ARG TORCH_INDEX_URL=
RUN pip install "$(grep -E '^torch==' requirements.lock)" ${TORCH_INDEX_URL:+--index-url $TORCH_INDEX_URL}
RUN pip install -r requirements.lock

COPY pyproject.toml README.md LICENSE ./
COPY playground ./playground
RUN pip install --no-deps .

FROM python:3.11-slim

# libgomp: OpenMP for the llama.cpp build; the app runs as an unprivileged user that owns only /data.
RUN apt-get update && apt-get install -y --no-install-recommends libgomp1 && rm -rf /var/lib/apt/lists/* \
    && useradd --create-home --uid 10001 playground && mkdir -p /data && chown playground:playground /data
COPY --from=build /opt/venv /opt/venv

ENV PATH=/opt/venv/bin:$PATH PLAYGROUND_DB=/data/sessions/playground.db PLAYGROUND_INDEXES=/data/indexes \
    PLAYGROUND_MODELS=/data/models
USER playground
WORKDIR /home/playground
VOLUME ["/data"]
EXPOSE 8501
# Streamlit answers "ok" on /_stcore/health once the server is up (the first start builds the demo: allow time).
HEALTHCHECK --interval=30s --timeout=5s --start-period=300s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4)"]
CMD ["playground", "demo", "--host", "0.0.0.0", "--port", "8501"]
