# kueue-doctor as a container: the exporter of deploy/kustomize, or any other command.
#   docker build -t kueue-doctor:0.1.0 .
#   docker run --rm -p 9817:9817 -v "$PWD/snapshot:/snapshot:ro" kueue-doctor:0.1.0 serve /snapshot --listen 0.0.0.0:9817
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /src
COPY pyproject.toml README.md ./
COPY src ./src
RUN pip install . && rm -rf /src

# a fixed numeric id, so Kubernetes' runAsNonRoot can check it (deploy/kustomize/deployment.yaml)
RUN groupadd --system --gid 10001 kueue-doctor \
 && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin kueue-doctor
USER 10001:10001
WORKDIR /tmp

EXPOSE 9817
ENTRYPOINT ["kueue-doctor"]
CMD ["--help"]
