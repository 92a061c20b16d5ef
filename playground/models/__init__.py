"""Models behind one protocol (local llama.cpp, OpenAI-compatible, Hugging Face, Cohere) and the response cache."""
