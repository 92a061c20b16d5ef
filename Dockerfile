# The playground app on the embedded demo: docker build -t playground . && docker run -p 8501:8501 playground
# Mirrors `make demo`: torch's CPU wheel first, then the package, then `playground demo` (listening on all
# interfaces inside the container only, so the port can be published).
FROM python:3.11-slim

RUN apt-get update && apt-get install -y --no-install-recommends build-essential cmake git \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY pyproject.toml README.md ./
COPY playground ./playground
COPY templates ./templates
# Set TORCH_INDEX_URL to a CPU-only PyTorch index to keep the image small (the default takes PyPI's build).
ARG TORCH_INDEX_URL=
RUN pip install --no-cache-dir torch==2.13.0 ${TORCH_INDEX_URL:+--index-url $TORCH_INDEX_URL} \
    && pip install --no-cache-dir -e .

ENV HF_HUB_OFFLINE=1 PLAYGROUND_DB=/data/sessions/playground.db PLAYGROUND_INDEXES=/data/indexes
VOLUME ["/data"]
EXPOSE 8501
CMD ["playground", "demo", "--host", "0.0.0.0", "--port", "8501"]
